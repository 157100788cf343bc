import { ArrayMaxSize, IsArray, IsBoolean, IsDateString, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { WebhookEventType } from '../webhook-events';

// class-validator runs a field's decorators from the last written to the first and the gateway stops at
// the first error: the type check is written last, so a value of the wrong type is reported as such.

/** PATCH /operator/v1/webhooks/{id}: any of the fields. */
export class UpdateWebhookDto {
  /** https URL of a public host (checked again at every delivery, docs/adr/0020). */
  @IsOptional() @MaxLength(2048) @IsString()
  url?: string;

  /** Only events of these portfolios; an empty list means every portfolio of the organization. */
  @IsOptional() @IsString({ each: true }) @ArrayMaxSize(1000) @IsArray()
  portfolioIds?: string[];

  /**
   * false: disabled by the operator (disabledAt now, disabledReason OPERATOR_DISABLED_REASON; its
   * pending deliveries are cancelled). true: enabled again, failingSince, disabledAt and
   * disabledReason cleared (the count towards automatic disabling starts again; docs/adr/0048).
   */
  @IsOptional() @IsBoolean()
  enabled?: boolean;

  /** Also send the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature). */
  @IsOptional() @IsBoolean()
  standardWebhooks?: boolean;
}

/** POST /operator/v1/organizations/{id}/webhooks. */
export class CreateWebhookDto {
  @MaxLength(2048) @IsString()
  url!: string;

  @IsOptional() @IsString({ each: true }) @ArrayMaxSize(1000) @IsArray()
  portfolioIds?: string[];

  @IsOptional() @IsBoolean()
  standardWebhooks?: boolean;
}

/** A secret rotation's default overlap: the replaced secret keeps signing beside the new one for 24 h (docs/adr/0048). */
export const WEBHOOK_SECRET_OVERLAP_DEFAULT_SECONDS = 86_400;
/** The longest overlap a rotation may ask for: 7 days. */
export const WEBHOOK_SECRET_OVERLAP_MAX_SECONDS = 604_800;
const OVERLAP_MESSAGE = `overlapSeconds must be an integer from 0 to ${WEBHOOK_SECRET_OVERLAP_MAX_SECONDS} (7 days)`;

/**
 * POST /operator/v1/webhooks/{id}/rotate-secret (the body is optional). overlapSeconds: how long the
 * replaced secret keeps signing beside the new one (default 86400); 0 retires it at once.
 */
export class RotateWebhookSecretDto {
  @IsOptional() @Min(0, { message: OVERLAP_MESSAGE }) @Max(WEBHOOK_SECRET_OVERLAP_MAX_SECONDS, { message: OVERLAP_MESSAGE }) @IsInt({ message: OVERLAP_MESSAGE })
  overlapSeconds?: number;
}

export interface WebhookView {
  id: string;
  organizationId: string;
  url: string;
  portfolioIds: string[];
  enabled: boolean;
  /**
   * The first failed attempt since the last successful one (null while the last attempt
   * succeeded, or none failed since the webhook was enabled): every attempt has failed since then.
   * Past WEBHOOK_DISABLE_AFTER_DAYS the dispatcher disables the webhook (docs/adr/0048).
   */
  failingSince: string | null;
  /** When the webhook was disabled, by the operator or automatically; null while enabled. */
  disabledAt: string | null;
  /** Why: OPERATOR_DISABLED_REASON, or the dispatcher's sentence naming the failures; null while enabled. */
  disabledReason: string | null;
  standardWebhooks: boolean;
  /**
   * While a secret rotation's overlap lasts, when the replaced secret stops signing (deliveries carry
   * a signature with each secret until then); null otherwise. Never the secret itself.
   */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * Only the registration and secret-rotation responses carry the secret (`whsec_` + 43 characters);
 * it is never shown again.
 */
export interface CreatedWebhookView extends WebhookView {
  secret: string;
}

/** The disabledReason of a webhook disabled by the operator (PATCH enabled false). */
export const OPERATOR_DISABLED_REASON = 'disabled by the operator';

const RECOVERY_DATE_TIME = { message: '$property must be an ISO 8601 date-time' };

/**
 * POST /operator/v1/webhooks/{id}/recover: re-send every delivery of the webhook that ended failed
 * with its completion in [since, until) (until: now when absent or later).
 */
export class RecoverDeliveriesDto {
  @IsDateString({ strict: true }, RECOVERY_DATE_TIME)
  since!: string;

  @IsOptional() @IsDateString({ strict: true }, RECOVERY_DATE_TIME)
  until?: string;
}

/**
 * The 202 of a recovery: how many failed deliveries got a new series of attempts (the dispatcher
 * sends them within a second; each shows in the delivery log under its own id), and the window
 * used — `since` as given, `until` as given or now (the earlier), both in the API's instant format.
 */
export interface DeliveryRecoveryView {
  webhookId: string;
  recovered: number;
  since: string;
  until: string;
}

/**
 * pending → succeeded | failed (after the last attempt of a series) | cancelled (before it finished,
 * the webhook was disabled or deleted or no longer covers the event's portfolio, the organization
 * was suspended, or the portfolio became a demo one).
 */
export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/**
 * What one attempt met. errorClass: null on success; otherwise one of http_status (a non-2xx answer,
 * 3xx included: redirects are never followed), timeout, connection, dns, tls, refused_address (the
 * host resolved to a non-public address), refused_scheme (http:// outside development), interrupted
 * (the dispatcher stopped during the attempt: whether the receiver got it is unknown; it counts).
 */
export interface DeliveryAttemptView {
  number: number;
  series: number;
  createdAt: string;
  statusCode: number | null;
  durationMs: number;
  errorClass: string | null;
  error: string | null;
  /** The address connected to (or refused), e.g. "203.0.113.7" or "2001:db8::1". */
  address: string | null;
}

export interface WebhookDeliveryView {
  /** The delivery id: the body's `id`, the same on every attempt and redelivery. */
  id: string;
  webhookId: string;
  eventId: string;
  type: WebhookEventType;
  status: WebhookDeliveryStatus;
  attemptCount: number;
  series: number;
  nextAttemptAt: string | null;
  createdAt: string;
  completedAt: string | null;
  /** Oldest first. */
  attempts: DeliveryAttemptView[];
}
