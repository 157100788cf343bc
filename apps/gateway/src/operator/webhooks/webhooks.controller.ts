import { Body, Controller, Param, Query, UseGuards } from '@nestjs/common';
import { AppError, CreateWebhookDto, isId, ListQueryDto, RecoverDeliveriesDto, RotateWebhookSecretDto, UpdateWebhookDto, WebhooksRpc } from '@dc/contracts';
import { OperatorTokenGuard } from '../../auth/operator-token.guard';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, OperatorCaller } from '../../core-client/core-client';
import { OperatorRoute } from '../../routes/operator-route.decorator';

/** Webhook registration and the delivery log (README, Operator API; spec: Events). */
@Controller()
@UseGuards(OperatorTokenGuard)
export class OperatorWebhooksController {
  constructor(private readonly core: CoreClient) {}

  /** 201 with the secret (`whsec_…`), the only time it is shown. */
  @OperatorRoute('POST', 'organizations/:id/webhooks', WebhooksRpc.create)
  create(@Param('id') organizationId: string, @Body() body: CreateWebhookDto, @Caller() caller: OperatorCaller) {
    if (!isId('org', organizationId)) throw AppError.notFound('organization');
    return this.core.send(WebhooksRpc.create, caller, { organizationId, body });
  }

  @OperatorRoute('GET', 'organizations/:id/webhooks', WebhooksRpc.list)
  list(@Param('id') organizationId: string, @Query() query: ListQueryDto, @Caller() caller: OperatorCaller) {
    if (!isId('org', organizationId)) throw AppError.notFound('organization');
    return this.core.send(WebhooksRpc.list, caller, { organizationId, query });
  }

  @OperatorRoute('PATCH', 'webhooks/:id', WebhooksRpc.update)
  update(@Param('id') id: string, @Body() body: UpdateWebhookDto, @Caller() caller: OperatorCaller) {
    if (!isId('whk', id)) throw AppError.notFound('webhook');
    return this.core.send(WebhooksRpc.update, caller, { id, body });
  }

  /** Soft deletion, pending deliveries cancelled. 204, no body. */
  @OperatorRoute('DELETE', 'webhooks/:id', WebhooksRpc.delete)
  delete(@Param('id') id: string, @Caller() caller: OperatorCaller) {
    if (!isId('whk', id)) throw AppError.notFound('webhook');
    return this.core.send(WebhooksRpc.delete, caller, { id });
  }

  @OperatorRoute('GET', 'webhooks/:id/deliveries', WebhooksRpc.deliveries)
  deliveries(@Param('id') id: string, @Query() query: ListQueryDto, @Caller() caller: OperatorCaller) {
    if (!isId('whk', id)) throw AppError.notFound('webhook');
    return this.core.send(WebhooksRpc.deliveries, caller, { id, query });
  }

  /**
   * 200 with the new secret (`whsec_…`), the only time it is shown; the replaced one signs beside it
   * for `overlapSeconds` (optional body; default 86400, 0 to 604800). docs/adr/0048.
   */
  @OperatorRoute('POST', 'webhooks/:id/rotate-secret', WebhooksRpc.rotateSecret)
  rotateSecret(@Param('id') id: string, @Body() body: RotateWebhookSecretDto, @Caller() caller: OperatorCaller) {
    if (!isId('whk', id)) throw AppError.notFound('webhook');
    return this.core.send(WebhooksRpc.rotateSecret, caller, { id, body });
  }

  /**
   * Recovery (docs/adr/0048): 202 `{data: {webhookId, recovered, since, until}}`; every delivery that
   * ended failed with completedAt in [since, until) gets a new series, sent by the dispatcher within
   * a second. 409 when the webhook is disabled; 400 for a window that is empty or in the future.
   */
  @OperatorRoute('POST', 'webhooks/:id/recover', WebhooksRpc.recover)
  recover(@Param('id') id: string, @Body() body: RecoverDeliveriesDto, @Caller() caller: OperatorCaller) {
    if (!isId('whk', id)) throw AppError.notFound('webhook');
    return this.core.send(WebhooksRpc.recover, caller, { id, body });
  }

  /** 202: the dispatcher sends the new series; 409 while the delivery is pending or its webhook is off. */
  @OperatorRoute('POST', 'deliveries/:id/redeliver', WebhooksRpc.redeliver)
  redeliver(@Param('id') id: string, @Caller() caller: OperatorCaller) {
    if (!isId('dlv', id)) throw AppError.notFound('delivery');
    return this.core.send(WebhooksRpc.redeliver, caller, { id });
  }
}
