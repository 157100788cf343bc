import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@dc/config';
import { generateWebhookSecret, SecretBox, webhookSecretContext } from '@dc/webhooks';
import { CONFIG } from '../tokens';

/** A new webhook's secret: the `whsec_…` text, shown once, and what is stored of it. */
export interface IssuedSecret {
  secret: string;
  ciphertext: string;
}

/**
 * Webhook secrets at rest (docs/adr/0020): generated here, stored only sealed with the configured
 * key (WEBHOOK_SECRET_KEY; older keys still open while secrets are re-encrypted), because the
 * dispatcher must read them back to sign. One SecretBox per process, built on first use from
 * configuration that libs/config has already validated (32-byte keys).
 */
@Injectable()
export class WebhookSecrets {
  private box?: SecretBox;

  constructor(@Inject(CONFIG) private readonly config: AppConfig) {}

  /** A new secret for the webhook `webhookId`, sealed for it alone (a ciphertext copied to another row does not open). */
  issue(webhookId: string): IssuedSecret {
    const secret = generateWebhookSecret();
    return { secret, ciphertext: this.secretBox().seal(secret, webhookSecretContext(webhookId)) };
  }

  /**
   * The ciphertext sealed again with the current key for its webhook, when it was sealed with a
   * previous key or before secrets were bound to their webhook (v1); null when it is current.
   */
  resealed(webhookId: string, ciphertext: string): string | null {
    const box = this.secretBox();
    if (!box.needsResealing(ciphertext)) return null;
    const context = webhookSecretContext(webhookId);
    return box.seal(box.open(ciphertext, context), context);
  }

  private secretBox(): SecretBox {
    const { secretKey, previousSecretKeys } = this.config.webhooks;
    return (this.box ??= new SecretBox(secretKey, previousSecretKeys));
  }
}
