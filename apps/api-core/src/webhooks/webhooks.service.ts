import { Inject, Injectable } from '@nestjs/common';
import {
  AppError, CreatedWebhookView, CreateWebhookDto, DeliveryRecoveryView, ErrorCode, ListBody, ListQueryDto, RecoverDeliveriesDto, RotateWebhookSecretDto,
  UpdateWebhookDto,
  WEBHOOK_SECRET_OVERLAP_DEFAULT_SECONDS, WebhookDeliveryView, WebhookView,
} from '@dc/contracts';
import type { AppConfig } from '@dc/config';
import type { Transactions } from '@dc/database';
import { checkWebhookUrl } from '@dc/webhooks';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { PortfolioSelection } from '../portfolios/portfolio-selection';
import { pageOf } from '../shared/page';
import { CONFIG, TRANSACTIONS } from '../tokens';
import { WebhookSecrets } from './webhook-secrets';
import { RedeliveryState, WebhooksRepository } from './webhooks.repository';

/** The 400 of a refused target: message and issue name `url` and give the reason (checkWebhookUrl's reasons start with "url"). */
export function refusedUrl(reason: string): AppError {
  const message = /^url\b/.test(reason) ? reason : `url is refused: ${reason}`;
  return AppError.validation(message, [{ message, path: 'url' }]);
}

/** Why a finished-looking redelivery changed nothing: the 409 (or 404) to answer. */
export function redeliveryRefusal(id: string, state: RedeliveryState | null): AppError {
  if (!state) return AppError.notFound('delivery');
  const conflict = (message: string) => new AppError(ErrorCode.InvalidStateTransition, message);
  if (state.webhookDeleted) return conflict(`delivery ${id} cannot be redelivered: its webhook is deleted`);
  if (!state.webhookEnabled) return conflict(`delivery ${id} cannot be redelivered: its webhook is disabled`);
  if (state.status === 'pending') return conflict(`delivery ${id} is still being attempted`);
  return conflict(`delivery ${id} changed meanwhile; read it and retry`);
}

/**
 * The window of a recovery, [since, until): `until` is the request's or now, whichever is earlier
 * (nothing fails in the future). 400 validation_error naming the field when since does not come
 * before until or is in the future. The DTO has already checked both are ISO 8601 date-times.
 */
export function recoveryWindow(body: RecoverDeliveriesDto, now: Date): { since: Date; until: Date } {
  const invalid = (path: string, message: string) => AppError.validation(message, [{ message, path }]);
  const since = new Date(body.since);
  if (Number.isNaN(since.getTime())) throw invalid('since', 'since must be an ISO 8601 date-time');
  const given = body.until === undefined ? now : new Date(body.until);
  if (Number.isNaN(given.getTime())) throw invalid('until', 'until must be an ISO 8601 date-time');
  if (since.getTime() > now.getTime()) throw invalid('since', 'since is in the future');
  if (since.getTime() >= given.getTime()) throw invalid('since', 'since must be before until');
  return { since, until: given.getTime() < now.getTime() ? given : now };
}

/**
 * Operator management of webhooks (README, Operator API; spec: Events, Registration rules):
 * registration with a server-generated secret shown once, changes, soft deletion, secret rotation,
 * the delivery log and redelivery. Targets must be public https (checked here and again at every delivery by the
 * dispatcher); the SQL is WebhooksRepository's.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly organizations: OrganizationsRepository,
    private readonly selection: PortfolioSelection,
    private readonly secrets: WebhookSecrets,
    @Inject(TRANSACTIONS) private readonly transactions: Transactions,
    @Inject(CONFIG) private readonly config: AppConfig,
  ) {}

  async create(organizationId: string, body: CreateWebhookDto): Promise<CreatedWebhookView> {
    if (!(await this.organizations.findById(organizationId))) throw AppError.notFound('organization');
    await this.checkTarget(body.url);
    const portfolioIds = await this.selection.ofOrganization(organizationId, body.portfolioIds ?? []);
    const id = this.webhooks.newId();
    const { secret, ciphertext } = this.secrets.issue(id);
    const webhook = await this.webhooks.insert({
      id,
      organizationId,
      url: body.url,
      portfolioIds,
      standardWebhooks: body.standardWebhooks ?? false,
      secretCiphertext: ciphertext,
    });
    return { ...webhook, secret };
  }

  async list(organizationId: string, query: ListQueryDto): Promise<ListBody<WebhookView>> {
    if (!(await this.organizations.findById(organizationId))) throw AppError.notFound('organization');
    return pageOf(await this.webhooks.listLive(organizationId, query.cursor ?? null, query.limit + 1), query.limit);
  }

  /**
   * Any of url (checked again), portfolioIds (of the webhook's organization; empty means all),
   * enabled, standardWebhooks. Disabling cancels the webhook's pending deliveries in the same
   * transaction and records disabledAt and disabledReason; enabling again clears them and
   * failingSince, and does not revive cancelled deliveries (redeliver does, one by one; recover, by
   * window, those that failed).
   */
  async update(id: string, body: UpdateWebhookDto): Promise<WebhookView> {
    const existing = await this.webhooks.findLive(id);
    if (!existing) throw AppError.notFound('webhook');
    if (body.url !== undefined) await this.checkTarget(body.url);
    const portfolioIds = body.portfolioIds === undefined ? undefined : await this.selection.ofOrganization(existing.organizationId, body.portfolioIds);
    const changes = { url: body.url, portfolioIds, enabled: body.enabled, standardWebhooks: body.standardWebhooks };
    if (Object.values(changes).every((value) => value === undefined)) return existing;
    const updated = await this.transactions.transaction(async (tx) => {
      const webhook = await this.webhooks.update(tx, id, changes);
      if (webhook && !webhook.enabled) await this.webhooks.cancelPendingDeliveries(tx, id);
      return webhook;
    });
    if (!updated) throw AppError.notFound('webhook');
    return updated;
  }

  /** Soft deletion; the webhook's pending deliveries are cancelled in the same transaction. Deleted ones are 404. */
  async delete(id: string): Promise<void> {
    const found = await this.transactions.transaction(async (tx) => {
      if (!(await this.webhooks.softDelete(tx, id))) return false;
      await this.webhooks.cancelPendingDeliveries(tx, id);
      return true;
    });
    if (!found) throw AppError.notFound('webhook');
  }

  /** The delivery log of a live webhook: newest first, each delivery with its attempts oldest first. */
  async deliveries(id: string, query: ListQueryDto): Promise<ListBody<WebhookDeliveryView>> {
    if (!(await this.webhooks.findLive(id))) throw AppError.notFound('webhook');
    return pageOf(await this.webhooks.deliveriesPage(id, query.cursor ?? null, query.limit + 1), query.limit);
  }

  /**
   * A new series of attempts for a finished delivery, same delivery id; the dispatcher enqueues it
   * within a second. Pending deliveries, and those of a disabled or deleted webhook, are 409.
   */
  async redeliver(id: string): Promise<WebhookDeliveryView> {
    const delivery = await this.webhooks.redeliver(id);
    if (delivery) return delivery;
    throw redeliveryRefusal(id, await this.webhooks.redeliveryState(id));
  }

  /**
   * Recovery of failed deliveries (docs/adr/0048): every delivery of the webhook that ended failed
   * in the window gets a new series, in one statement; the dispatcher sends them within a second.
   * 404 for a missing or deleted webhook, 409 when it is disabled (enable it first: its deliveries
   * would be cancelled at their first claim).
   */
  async recover(id: string, body: RecoverDeliveriesDto): Promise<DeliveryRecoveryView> {
    const { since, until } = recoveryWindow(body, new Date());
    const recovered = await this.webhooks.recoverFailed(id, since, until);
    if (recovered === null) {
      if (!(await this.webhooks.findLive(id))) throw AppError.notFound('webhook');
      throw new AppError(ErrorCode.InvalidStateTransition, `webhook ${id} is disabled: enable it before recovering its deliveries`);
    }
    return { webhookId: id, recovered, since: since.toISOString(), until: until.toISOString() };
  }

  /**
   * Secret rotation without downtime (docs/adr/0048): a new secret, returned once like
   * registration's; the current one keeps signing beside it until now + overlapSeconds (default
   * 24 h; 0: not at all). A second rotation during an overlap keeps only the secret it replaces as
   * the previous one: the older one stops signing at once. Disabled webhooks may rotate too; a
   * missing or deleted webhook is 404.
   */
  async rotateSecret(id: string, body: RotateWebhookSecretDto): Promise<CreatedWebhookView> {
    const { secret, ciphertext } = this.secrets.issue(id);
    const webhook = await this.webhooks.rotateSecret(id, ciphertext, body.overlapSeconds ?? WEBHOOK_SECRET_OVERLAP_DEFAULT_SECONDS);
    if (!webhook) throw AppError.notFound('webhook');
    return { ...webhook, secret };
  }

  /** Spec: Events, Registration rules 1 — https to a public host, unless the development flag allows more. */
  private async checkTarget(url: string): Promise<void> {
    const verdict = await checkWebhookUrl(url, { allowPrivateTargets: this.config.webhooks.allowPrivateTargets });
    if (!verdict.ok) throw refusedUrl(verdict.reason);
  }
}
