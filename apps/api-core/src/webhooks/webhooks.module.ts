import { Module } from '@nestjs/common';
import { OrganizationsModule } from '../organizations/organizations.module';
import { PortfoliosModule } from '../portfolios/portfolios.module';
import { WebhookSecretResealer } from './webhook-secret-resealer';
import { WebhookSecrets } from './webhook-secrets';
import { WebhooksHandlers } from './webhooks.handlers';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Operator management of webhooks and their delivery log; the dispatcher (apps/webhook-dispatcher) sends them. */
@Module({
  imports: [OrganizationsModule, PortfoliosModule],
  controllers: [WebhooksHandlers],
  providers: [WebhooksService, WebhooksRepository, WebhookSecrets, WebhookSecretResealer],
})
export class WebhooksModule {}
