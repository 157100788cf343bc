import type { ItemBody, ListBody } from '../pagination';
import type { ListQueryDto } from '../common/list-query.dto';
import { ByIdInput, operatorRpc, UnderOrganizationInput, UpdateInput } from '../rpc/contract';
import type {
  CreatedWebhookView, CreateWebhookDto, DeliveryRecoveryView, RecoverDeliveriesDto, RotateWebhookSecretDto, UpdateWebhookDto, WebhookDeliveryView, WebhookView,
} from './webhook.dto';

/** Operator management of webhooks and their delivery log (README, Operator API). */
export const WebhooksRpc = {
  create: operatorRpc<UnderOrganizationInput<CreateWebhookDto>, ItemBody<CreatedWebhookView>>('operator.webhooks.create', { status: 201 }),
  /** The organization's live webhooks in id order (keyset pagination), without secrets. */
  list: operatorRpc<{ organizationId: string; query: ListQueryDto }, ListBody<WebhookView>>('operator.webhooks.list'),
  update: operatorRpc<UpdateInput<UpdateWebhookDto>, ItemBody<WebhookView>>('operator.webhooks.update'),
  delete: operatorRpc<ByIdInput, void>('operator.webhooks.delete', { status: 204 }),
  /** Newest first (id descending; the cursor continues below the last id), each delivery with its attempts oldest first. */
  deliveries: operatorRpc<{ id: string; query: ListQueryDto }, ListBody<WebhookDeliveryView>>('operator.webhooks.deliveries'),
  /**
   * A new series of attempts for a finished delivery (succeeded, failed, cancelled), same delivery id;
   * 409 invalid_state_transition while it is pending or when its webhook is disabled or deleted.
   */
  redeliver: operatorRpc<ByIdInput, ItemBody<WebhookDeliveryView>>('operator.webhooks.redeliver', { status: 202 }),
  /**
   * Recovery (docs/adr/0048): a new series of attempts, as `redeliver` starts one, for every delivery of
   * the webhook that ended failed with completedAt in [since, until), in one statement. 404 for a
   * missing or deleted webhook; 409 invalid_state_transition when it is disabled; 400 for a window
   * that is empty (since not before until) or starts in the future.
   */
  recover: operatorRpc<UpdateInput<RecoverDeliveriesDto>, ItemBody<DeliveryRecoveryView>>('operator.webhooks.recover', { status: 202 }),
  /**
   * A new secret, shown once in the answer; the current one becomes the previous secret and signs
   * beside it for overlapSeconds (a previous secret still in its overlap is dropped). 404 for a
   * missing or deleted webhook.
   */
  rotateSecret: operatorRpc<UpdateInput<RotateWebhookSecretDto>, ItemBody<CreatedWebhookView>>('operator.webhooks.rotate-secret'),
} as const;
