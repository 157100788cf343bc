import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

/**
 * Claim check for request bodies larger than a NATS message (the server's max_payload) even
 * gzipped: NatsBus parks the bytes in Redis for a minute and sends a reference;
 * NatsRpcServer takes them once (payload-codec.ts, docs/adr/0017).
 */
export class PayloadStore {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly ttlSeconds = 60,
  ) {}

  async put(bytes: Buffer): Promise<string> {
    const ref = randomUUID();
    await this.redis.set(this.key(ref), bytes, 'EX', this.ttlSeconds);
    return ref;
  }

  /** The parked bytes, removed as they are read; null when expired or already taken. */
  async take(ref: string): Promise<Buffer | null> {
    return this.redis.getdelBuffer(this.key(ref));
  }

  private key(ref: string): string {
    return `${this.keyPrefix}:payload:${ref}`;
  }
}
