import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@dc/config';
import { generateWebhookSecret, SecretBox } from '@dc/webhooks';
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

  issue(): IssuedSecret {
    const secret = generateWebhookSecret();
    return { secret, ciphertext: this.secretBox().seal(secret) };
  }

  private secretBox(): SecretBox {
    const { secretKey, previousSecretKeys } = this.config.webhooks;
    return (this.box ??= new SecretBox(secretKey, previousSecretKeys));
  }
}
