import type { VerifiedKey } from '@dc/contracts';

interface Entry {
  value: VerifiedKey | null; // null: no such key (or revoked)
  expiresAt: number;
}

/**
 * The 60-second verification cache (spec: Authentication 7), per gateway process, keyed by the
 * key's hash. Unknown keys are cached too, so a flood of well-formed fake keys does not reach
 * api-core. Operator changes drop an organization's entries at once through a NATS broadcast.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(keyHash: string): VerifiedKey | null | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return entry.value;
  }

  set(keyHash: string, value: VerifiedKey | null): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      // Map iteration is insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(keyHash, { value, expiresAt: this.now() + this.ttlMs });
  }

  dropOrganization(organizationId: string): void {
    for (const [hash, entry] of this.entries) {
      if (entry.value?.organizationId === organizationId) this.entries.delete(hash);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
