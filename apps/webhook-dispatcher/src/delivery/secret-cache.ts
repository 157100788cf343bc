export interface SecretCacheOptions {
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

/**
 * Decrypted webhook secrets kept in memory for a short while, so that signing a burst of deliveries
 * to one webhook decrypts its secret once. Keyed by webhook id and ciphertext, and every attempt's
 * claim reads the ciphertexts from the webhook row: a rotated secret (new ciphertext, sealed with a
 * fresh IV) is a new entry, used from the first attempt claimed after the rotation commits, never
 * served stale; the previous secret of a rotation's overlap is an entry of its own, asked for only
 * while the overlap lasts (docs/adr/0048). An entry lives at most `ttlMs`. Bounded: past
 * `maxEntries` the oldest entry goes first.
 */
export class SecretCache {
  private readonly entries = new Map<string, { secret: string; expiresAt: number }>();
  private readonly now: () => number;

  constructor(
    private readonly open: (ciphertext: string, webhookId: string) => string,
    private readonly options: SecretCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  secretOf(webhookId: string, ciphertext: string): string {
    const key = `${webhookId}\n${ciphertext}`;
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.secret;
    if (hit) this.entries.delete(key);
    const secret = this.open(ciphertext, webhookId);
    while (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, { secret, expiresAt: now + this.options.ttlMs });
    return secret;
  }

  get size(): number {
    return this.entries.size;
  }
}
