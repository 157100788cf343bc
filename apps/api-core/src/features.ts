import { MODULE_METADATA } from '@nestjs/common/constants';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AuthModule } from './auth/auth.module';
import { CallsModule } from './calls/calls.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { DebtorBatchModule } from './debtor-batch/debtor-batch.module';
import { DebtorsModule } from './debtors/debtors.module';
import { DebtsModule } from './debts/debts.module';
import { EventsModule } from './events/events.module';
import { ImportsModule } from './imports/imports.module';
import { OrganizationsModule } from './organizations/organizations.module';
import { PaymentsModule } from './payments/payments.module';
import { PortfoliosModule } from './portfolios/portfolios.module';
import { PromisesModule } from './promises/promises.module';
import type { HandlerClass } from './rpc/handler-coverage';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * Every feature of api-core, one Nest module each (handlers, service or use case, repository).
 * The one list to extend with a new feature: AppModule imports these, and the start-up coverage
 * check reads the handler classes from them.
 */
export const FEATURE_MODULES = [
  AuthModule,
  OrganizationsModule,
  PortfoliosModule,
  ApiKeysModule,
  PaymentsModule,
  DebtorsModule,
  DebtorBatchModule,
  DebtsModule,
  CallsModule,
  PromisesModule,
  CampaignsModule,
  WebhooksModule,
  ImportsModule,
  EventsModule,
] as const;

/** The handler classes (a feature module's controllers) of every feature module. */
export const HANDLER_CLASSES: readonly HandlerClass[] = FEATURE_MODULES.flatMap(
  (feature) => (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, feature) as HandlerClass[] | undefined) ?? [],
);
