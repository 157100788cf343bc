import { Injectable } from '@nestjs/common';
import { Database, isLockNotAvailable, type Tx } from '@dc/database';

/** The advisory lock that lets one dispatcher at a time prune (any constant shared by all replicas). */
const PRUNE_LOCK = 'webhook-dispatcher:prune';

/** The SQL of retention: monthly partitions made ahead and dropped past the retention (docs/adr/0051); expired previous secrets. */
@Injectable()
export class PruningRepository {
  constructor(private readonly database: Database) {}

  /**
   * Forgets the previous secret of every webhook whose rotation overlap has ended (docs/adr/0048):
   * signing already ignores it; this keeps no ciphertext of a retired secret at rest. One statement;
   * idempotent, so every dispatcher may run it. A rotation committed meanwhile is re-checked by the
   * UPDATE and kept. Answers how many were cleared.
   */
  async clearExpiredPreviousSecrets(): Promise<number> {
    return this.database.client.$executeRaw`
      UPDATE webhooks SET previous_secret_ciphertext = NULL, previous_secret_expires_at = NULL
      WHERE previous_secret_expires_at <= now()`;
  }

  /**
   * Creates the missing monthly partitions of every partitioned table (docs/adr/0051) for the month
   * of `at` and the `monthsAhead` after it: a transaction per table, under the pruning lock. A table
   * whose related tables stayed busy (dc_create_partitions gives up rather than hold their writers
   * up) is answered in `busy`; the next run tries again. Null when another dispatcher holds the lock.
   */
  async createPartitions(at: Date, monthsAhead: number): Promise<{ created: number; busy: string[] } | null> {
    const tables = await this.database.client.$queryRaw<{ name: string }[]>`SELECT table_name AS name FROM partitioned_tables ORDER BY table_name`;
    const result = { created: 0, busy: [] as string[] };
    for (const { name } of tables) {
      try {
        const created = await this.database.transaction(async (tx) => {
          if (!(await locked(tx))) return null;
          const [row] = await tx.$queryRaw<{ created: number }[]>`SELECT dc_create_partitions(${name}, ${at}::timestamptz, ${monthsAhead}::int) AS created`;
          return row.created;
        });
        if (created === null) return null;
        result.created += created;
      } catch (err) {
        if (!isLockNotAvailable(err)) throw err;
        result.busy.push(name);
      }
    }
    return result;
  }

  /**
   * Drops the partitions of `table` whose every row is older than `before` (dc_drop_partitions: an
   * outbox month with an event not yet relayed is kept), in one transaction under the pruning lock.
   * Answers the partitions dropped, or null when another dispatcher holds the lock.
   */
  async dropPartitionsBefore(table: RetainedTable, before: Date): Promise<string[] | null> {
    return this.database.transaction(async (tx) => {
      if (!(await locked(tx))) return null;
      const [{ dropped }] = await tx.$queryRaw<{ dropped: string[] }[]>`SELECT dc_drop_partitions(${table}, ${before}::timestamptz) AS dropped`;
      return dropped;
    });
  }

  /** How long until the first partitioned table runs out of partitions (the end of its last month), in seconds. */
  async partitionsAheadSeconds(): Promise<number> {
    const [{ seconds }] = await this.database.client.$queryRaw<{ seconds: number }[]>`
      SELECT coalesce(min(extract(epoch FROM ends - now())), 0)::float8 AS seconds FROM (
        SELECT p.table_name, max((to_date(substring(c.relname FROM '_p([0-9]{6})$'), 'YYYYMM') + interval '1 month') AT TIME ZONE 'UTC') AS ends
        FROM partitioned_tables p
        JOIN pg_inherits i ON i.inhparent = p.table_name::regclass
        JOIN pg_class c ON c.oid = i.inhrelid
        GROUP BY p.table_name) last`;
    return seconds;
  }
}

/** The tables whose old months are dropped, in the order they go: attempts, then deliveries, then the events. */
export const RETAINED_TABLES = ['webhook_delivery_attempts', 'webhook_deliveries', 'outbox_events'] as const;
export type RetainedTable = (typeof RETAINED_TABLES)[number];

/** One dispatcher at a time: the transaction-scoped pruning lock, or false when another holds it. */
async function locked(tx: Tx): Promise<boolean> {
  const [{ got }] = await tx.$queryRaw<{ got: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext(${PRUNE_LOCK})) AS got`;
  return got;
}
