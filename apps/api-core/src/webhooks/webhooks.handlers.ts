import { Controller } from '@nestjs/common';
import {
  ByIdInput, CreateWebhookDto, ListQueryDto, RecoverDeliveriesDto, RotateWebhookSecretDto, UnderOrganizationInput, UpdateInput, UpdateWebhookDto,
  WebhooksRpc,
} from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { WebhooksService } from './webhooks.service';

@Controller()
export class WebhooksHandlers {
  constructor(private readonly webhooks: WebhooksService) {}

  @Handles(WebhooksRpc.create)
  async create(input: UnderOrganizationInput<CreateWebhookDto>) {
    return { data: await this.webhooks.create(input.organizationId, input.body) };
  }

  @Handles(WebhooksRpc.list)
  list(input: { organizationId: string; query: ListQueryDto }) {
    return this.webhooks.list(input.organizationId, input.query);
  }

  @Handles(WebhooksRpc.update)
  async update(input: UpdateInput<UpdateWebhookDto>) {
    return { data: await this.webhooks.update(input.id, input.body) };
  }

  @Handles(WebhooksRpc.delete)
  delete(input: ByIdInput) {
    return this.webhooks.delete(input.id);
  }

  @Handles(WebhooksRpc.deliveries)
  deliveries(input: { id: string; query: ListQueryDto }) {
    return this.webhooks.deliveries(input.id, input.query);
  }

  @Handles(WebhooksRpc.redeliver)
  async redeliver(input: ByIdInput) {
    return { data: await this.webhooks.redeliver(input.id) };
  }

  @Handles(WebhooksRpc.recover)
  async recover(input: UpdateInput<RecoverDeliveriesDto>) {
    return { data: await this.webhooks.recover(input.id, input.body) };
  }

  @Handles(WebhooksRpc.rotateSecret)
  async rotateSecret(input: UpdateInput<RotateWebhookSecretDto>) {
    return { data: await this.webhooks.rotateSecret(input.id, input.body) };
  }
}
