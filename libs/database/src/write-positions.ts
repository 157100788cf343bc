import type { Redis } from 'ioredis';
import { lsnFromKey, lsnKey } from './lsn';
import { ReadRouter, type ReplicaSettings, type WritePositions } from './read-routing';

/**
 * Raises the key's position (16 hexadecimal digits, which compare as text as the positions do) and
 * renews its expiry; a lower position (an older write answered later) only renews it. KEYS[1]: the
 * key; ARGV: the position, its lifetime in ms.
 */
export const RECORD_WRITE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if (not current) or current < ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`;

type Scripts = { dcRecordWrite(key: string, lsn: string, ttlMs: number): Promise<number> };

/**
 * Each API key's last write position in Redis, `<prefix>:lsn:{<apiKeyId>}` (the hash tag of the key's
 * idempotency records, docs/adr/0033), kept `rememberMs` after its last write (docs/adr/0050). Every
 * api-core replica and the importer share it: a key's next read may land on any of them.
 */
export class RedisWritePositions implements WritePositions {
  /** The store of a process configured with `replicas` (api-core, the importer); null without replicas: no write records anything. */
  static forReplicas(redis: Redis, keyPrefix: string, replicas: ReplicaSettings): RedisWritePositions | null {
    return replicas.urls.length ? new RedisWritePositions(redis, keyPrefix, ReadRouter.rememberWritesMs(replicas)) : null;
  }

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly rememberMs: number,
  ) {
    redis.defineCommand('dcRecordWrite', { numberOfKeys: 1, lua: RECORD_WRITE_SCRIPT });
  }

  async lastWrite(apiKeyId: string): Promise<bigint | null> {
    const stored = await this.redis.get(this.key(apiKeyId));
    return stored === null ? null : lsnFromKey(stored);
  }

  async recordWrite(apiKeyId: string, lsn: string): Promise<void> {
    await (this.redis as unknown as Scripts).dcRecordWrite(this.key(apiKeyId), lsnKey(lsn), this.rememberMs);
  }

  private key(apiKeyId: string): string {
    return `${this.keyPrefix}:lsn:{${apiKeyId}}`;
  }
}
