import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@dc/observability';
import { LOGGER } from '../tokens';
import { WebhookSecrets } from './webhook-secrets';
import { WebhooksRepository } from './webhooks.repository';

/** Webhooks read per pass of the start-up sweep. */
const PAGE = 500;

/**
 * Run by api-core's main once it serves, in the background: every webhook secret sealed with a previous WEBHOOK_SECRET_KEY, or
 * before secrets were bound to their webhook (v1, docs/adr/0020), is sealed again with the current
 * key for its webhook — the previous secret of a rotation still in its overlap too (docs/adr/0048).
 * Each page is one UPDATE per column that replaces a ciphertext only if it is still the one read, so
 * replicas starting together, or an operator changing a webhook or rotating its secret meanwhile,
 * lose nothing.
 */
@Injectable()
export class WebhookSecretResealer {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly secrets: WebhookSecrets,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Returns how many secrets were sealed again. */
  async resealAll(): Promise<number> {
    let resealed = 0;
    for (let after: string | null = null; ; ) {
      const page = await this.webhooks.secretsAfter(after, PAGE);
      const changes = page.flatMap((w) => {
        const sealed = this.secrets.resealed(w.id, w.ciphertext);
        return sealed ? [{ id: w.id, from: w.ciphertext, to: sealed }] : [];
      });
      const previousChanges = page.flatMap((w) => {
        const sealed = w.previousCiphertext === null ? null : this.secrets.resealed(w.id, w.previousCiphertext);
        return sealed && w.previousCiphertext !== null ? [{ id: w.id, from: w.previousCiphertext, to: sealed }] : [];
      });
      if (changes.length) resealed += await this.webhooks.replaceSecrets(changes);
      if (previousChanges.length) resealed += await this.webhooks.replacePreviousSecrets(previousChanges);
      if (page.length < PAGE) break;
      after = page[page.length - 1].id;
    }
    if (resealed) this.logger.info({ resealed }, 'webhook secrets sealed again with the current key, bound to their webhook');
    return resealed;
  }
}
