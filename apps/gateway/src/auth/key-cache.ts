import type { VerifiedKey } from '@dc/contracts';

/**
 * Entries with a time to live, at most `capacity` of them; when full, the least recently read
 * goes. Map iteration is insertion order, and a read re-inserts its entry, so the first key is
 * always the least recently used.
 */
class LruTtlMap<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly capacity: number,
    private readonly now: () => number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key);
    const oldest = this.entries.size >= this.capacity ? this.entries.keys().next().value : undefined;
    if (oldest !== undefined) this.entries.delete(oldest);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  *[Symbol.iterator](): IterableIterator<[string, V]> {
    for (const [key, entry] of this.entries) yield [key, entry.value];
  }

  get size(): number {
    return this.entries.size;
  }
}

export interface KeyCacheLimits {
  /** Verified keys kept (least recently used evicted first). */
  verified: number;
  /** Unknown keys kept, apart: a flood of made-up keys (anyone can compute the checksum) evicts only its own kind. */
  unknown: number;
}

/**
 * The 60-second verification cache (spec: Authentication 7), per gateway process, keyed by the
 * key's hash. Unknown keys are cached too, so repeating a made-up key does not reach api-core;
 * they live in their own bounded map, so no number of them can push a valid key out. Operator
 * changes drop an organization's entries at once through a NATS broadcast.
 */
export class KeyCache {
  private readonly verified: LruTtlMap<VerifiedKey>;
  private readonly unknown: LruTtlMap<true>;
  /**
   * Counts invalidations. A lookup notes it before asking api-core and stores its answer only if no
   * invalidation arrived meanwhile: an answer read before an operator change is never cached after
   * the broadcast that announced it.
   */
  private invalidations = 0;

  constructor(
    private readonly ttlMs: number,
    limits: KeyCacheLimits = { verified: 50_000, unknown: 10_000 },
    now: () => number = Date.now,
  ) {
    this.verified = new LruTtlMap(limits.verified, now);
    this.unknown = new LruTtlMap(limits.unknown, now);
  }

  /** The verified key, null when known not to exist, undefined when not cached. */
  get(keyHash: string): VerifiedKey | null | undefined {
    return this.verified.get(keyHash) ?? (this.unknown.get(keyHash) ? null : undefined);
  }

  /** The value to pass to `set` as `since`, taken before the lookup starts. */
  get generation(): number {
    return this.invalidations;
  }

  /** Caches a lookup's answer, unless an invalidation arrived since `since` (then the next request looks up again). */
  set(keyHash: string, value: VerifiedKey | null, since = this.invalidations): void {
    if (this.ttlMs <= 0 || since !== this.invalidations) return;
    if (value) {
      this.unknown.delete(keyHash);
      this.verified.set(keyHash, value, this.ttlMs);
    } else {
      this.verified.delete(keyHash);
      this.unknown.set(keyHash, true, this.ttlMs);
    }
  }

  dropOrganization(organizationId: string): void {
    this.invalidations += 1;
    for (const [hash, value] of this.verified) {
      if (value.organizationId === organizationId) this.verified.delete(hash);
    }
  }

  get size(): { verified: number; unknown: number } {
    return { verified: this.verified.size, unknown: this.unknown.size };
  }
}
