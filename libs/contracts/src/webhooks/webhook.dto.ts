import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
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

export interface WebhookView {
  id: string;
  organizationId: string;
  url: string;
  portfolioIds: string[];
  enabled: boolean;
  standardWebhooks: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Only the registration response carries the secret (`whsec_` + 43 characters); it is never shown again. */
export interface CreatedWebhookView extends WebhookView {
  secret: string;
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
