import { QueryResultRow } from 'pg';
import type { Database, DatabaseOptions } from './database.service';
import { DeadlinePassedError } from './deadline-pool';
import { lsnText, lsnValue } from './lsn';
import type { SqlStatement } from './prepared-statements';
import { openPool, ReadPool } from './read-pool';
import { isTransientDatabaseError } from './transient-error';

/**
 * Read replicas with read-your-writes (docs/adr/0050). Public list and by-id reads go to a replica in
 * rotation, unless the API key that reads has written recently: then to a replica that has replayed
 * the key's last write (waited for up to `waitMs`), else to the primary. A replica is in rotation while
 * it answers and lags at most `maxLagMs`; the rest of the time every read goes to the primary.
 */

export interface ReplicaSettings {
  /** DATABASE_REPLICA_URLS: one pool per replica, each of the primary's size and session settings. */
  urls: readonly string[];
  /** A replica lagging more than this leaves the rotation until it has caught up. */
  maxLagMs: number;
  /** How long a read after the key's own write waits for a replica to replay it before going to the primary. */
  waitMs: number;
  /** How often each replica's position and lag are measured. */
  probeIntervalMs: number;
}

/**
 * The last write of each API key, shared by every process (Redis, write-positions.ts): a write records
 * its commit's WAL position, a read asks for it. An entry lives as long as a replica in rotation may
 * still lack the write (`ReadRouter.rememberWritesMs`).
 */
export interface WritePositions {
  /** The key's last write position still remembered, or null; throws when it cannot be known. */
  lastWrite(apiKeyId: string): Promise<bigint | null>;
  /** Raises the key's position to `lsn` (never lowers it). */
  recordWrite(apiKeyId: string, lsn: string): Promise<void>;
}

/** Where a read ran, and why. */
export type ReadTarget = 'replica' | 'primary';
export type ReadReason =
  /** A replica, for a key with no recent write (or one every replica had replayed). */
  | 'replica'
  /** A replica, after waiting for it to replay the key's write. */
  | 'replica_caught_up'
  /** No replica configured or none in rotation. */
  | 'no_replica'
  /** No replica replayed the key's last write within `waitMs`. */
  | 'replica_behind'
  /** The key's last write could not be read (Redis): the primary is always current. */
  | 'writes_unknown'
  /** The replica failed the read (unreachable, a recovery conflict): run again on the primary. */
  | 'replica_failed';

/** Why a replica is out of rotation. */
export type OutOfRotation = 'lagging' | 'unreachable' | 'not_in_recovery';

/** What the router reports to the service's metrics. */
export interface ReadRoutingObserver {
  read(target: ReadTarget, reason: ReadReason): void;
  /** A read that waited for a replica to replay its key's write: how long, and where it ran then. */
  waited(seconds: number, target: ReadTarget): void;
  /** A write whose position could not be recorded (Redis unreachable). */
  unrecorded(): void;
  /** After each probe: the replica's lag (null: unknown) and whether it is in rotation. */
  replica(name: string, lagSeconds: number | null, inRotation: boolean, reason: OutOfRotation | null): void;
}

const REPLICA_STATUS_SQL = 'SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS lsn';
/** Kept per replica while unreplayed: one a probe, enough for ~3 hours at one a second. */
const MAX_PENDING_SAMPLES = 10_000;

/** A primary position and when it was read. */
interface Sample {
  lsn: bigint;
  at: number;
}

/** One replica: its pool and what the probes learnt of it. */
export class Replica {
  readonly reads: ReadPool;
  /** Its last known replay position (raised by probes and by waits). */
  replayed = -1n;
  inRotation = false;
  outReason: OutOfRotation | null = 'unreachable';
  lagMs: number | null = null;
  /** Primary positions it had not replayed when last seen, oldest first: its lag is the oldest one's age. */
  private readonly pending: Sample[] = [];
  private refreshing: Promise<bigint> | undefined;

  constructor(readonly name: string, url: string, poolSize: number, options: DatabaseOptions) {
    this.reads = new ReadPool(openPool(url, poolSize, options, 'debt-collection-replica-reads'), options);
  }

  /** Its replay position now (one round trip; concurrent callers share it). */
  refresh(): Promise<bigint> {
    this.refreshing ??= this.reads.prepared<{ recovery: boolean; lsn: string | null }>({ text: REPLICA_STATUS_SQL, values: [] })
      .then(([row]) => {
        if (!row.recovery || row.lsn === null) throw new NotAReplica();
        const lsn = lsnValue(row.lsn);
        if (lsn > this.replayed) this.replayed = lsn;
        return this.replayed;
      })
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** A probe: measures the replica against `sample` (the primary's position just read), and sets its rotation. */
  async probe(sample: Sample | null, maxLagMs: number, now: () => number): Promise<void> {
    if (sample && this.pending.length < MAX_PENDING_SAMPLES) this.pending.push(sample);
    try {
      await this.refresh();
    } catch (err) {
      this.takeOut(err instanceof NotAReplica ? 'not_in_recovery' : 'unreachable');
      return;
    }
    while (this.pending.length && this.pending[0].lsn <= this.replayed) this.pending.shift();
    this.lagMs = this.pending.length ? Math.max(0, now() - this.pending[0].at) : 0;
    this.inRotation = this.lagMs <= maxLagMs;
    this.outReason = this.inRotation ? null : 'lagging';
  }

  /** Out of rotation until a probe finds it answering and caught up. */
  takeOut(reason: OutOfRotation): void {
    this.inRotation = false;
    this.outReason = reason;
    if (reason === 'lagging') return;
    this.lagMs = null;
    // Learnt again when it answers: a server rebuilt behind this address may be at an older position.
    this.replayed = -1n;
  }

  close(): Promise<void> {
    return this.reads.pool.ended ? Promise.resolve() : this.reads.pool.end();
  }
}

class NotAReplica extends Error {
  constructor() {
    super('the server is not in recovery (not a replica, or promoted)');
  }
}

/** A replica's name in metrics and logs: its host, port and database, never its credentials. */
export function replicaName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

/**
 * Routes the public reads of one process (api-core) between the primary and the replicas. Without
 * replicas every read goes to the primary and nothing else is asked (no Redis, no probe).
 */
export class ReadRouter {
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private probing: Promise<void> | undefined;

  constructor(
    private readonly primary: ReadPool,
    /** The primary's current WAL position (the lag's reference). */
    private readonly primaryLsn: () => Promise<string>,
    readonly replicas: readonly Replica[],
    private readonly writes: WritePositions | null,
    private readonly settings: Pick<ReplicaSettings, 'maxLagMs' | 'waitMs' | 'probeIntervalMs'>,
    private readonly observer: ReadRoutingObserver,
    private readonly now: () => number = Date.now,
  ) {}

  /** Replicas per `settings` (none: every read on the primary), measured against `primary`. */
  static open(primary: Database, settings: ReplicaSettings, poolSize: number, options: DatabaseOptions, writes: WritePositions | null, observer: ReadRoutingObserver): ReadRouter {
    const replicas = settings.urls.map((url) => new Replica(replicaName(url), url, poolSize, options));
    return new ReadRouter(primary.reads, () => primary.currentLsn(), replicas, writes, settings, observer);
  }

  /** Every read on the primary (no replicas configured). */
  static primaryOnly(primary: Database): ReadRouter {
    const ignore: ReadRoutingObserver = { read: () => undefined, waited: () => undefined, unrecorded: () => undefined, replica: () => undefined };
    return new ReadRouter(primary.reads, () => primary.currentLsn(), [], null, { maxLagMs: 0, waitMs: 0, probeIntervalMs: 1_000 }, ignore);
  }

  /**
   * How long a write's position must be remembered: a replica in rotation lags at most `maxLagMs`,
   * measured every `probeIntervalMs`, so after both (and a probe's own time) every replica in
   * rotation has replayed it.
   */
  static rememberWritesMs(settings: Pick<ReplicaSettings, 'maxLagMs' | 'probeIntervalMs'>): number {
    return settings.maxLagMs + 2 * settings.probeIntervalMs + 1_000;
  }

  /**
   * Records an API key's write (its commit's position) before the write is answered. Never throws:
   * the write has committed, and failing its answer would not undo it. Unrecorded (Redis unreachable),
   * the key's reads within the lag bound may miss it on a replica; while Redis stays unreachable they
   * run on the primary (`writes_unknown`).
   */
  async wrote(apiKeyId: string, lsn: string): Promise<void> {
    if (!this.replicas.length || !this.writes) return;
    try {
      await this.writes.recordWrite(apiKeyId, lsn);
    } catch {
      this.observer.unrecorded();
    }
  }

  /** A public read for `apiKeyId`: its rows, from a replica or the primary. */
  prepared<T extends QueryResultRow>(apiKeyId: string, query: SqlStatement): Promise<T[]> {
    return this.route(apiKeyId, (pool) => pool.prepared<T>(query));
  }

  /** `prepared`, every column read as bytes (ReadPool.preparedBytes). */
  preparedBytes<T extends { [column in keyof T]: Buffer | null }>(apiKeyId: string, query: SqlStatement): Promise<T[]> {
    return this.route(apiKeyId, (pool) => pool.preparedBytes<T>(query));
  }

  private async route<T>(apiKeyId: string, read: (pool: ReadPool) => Promise<T>): Promise<T> {
    if (!this.replicas.length || !this.replicas.some((r) => r.inRotation)) return this.onPrimary('no_replica', read);
    let needed: bigint | null;
    try {
      needed = this.writes ? await this.writes.lastWrite(apiKeyId) : null;
    } catch {
      return this.onPrimary('writes_unknown', read);
    }
    const replica = this.pick(needed);
    if (!replica) return this.onPrimary('no_replica', read);
    let reason: ReadReason = 'replica';
    if (needed !== null && replica.replayed < needed) {
      const started = this.now();
      const caughtUp = await this.waitFor(replica, needed);
      this.observer.waited((this.now() - started) / 1000, caughtUp ? 'replica' : 'primary');
      if (!caughtUp) return this.onPrimary('replica_behind', read);
      reason = 'replica_caught_up';
    }
    try {
      const rows = await read(replica.reads);
      this.observer.read('replica', reason);
      return rows;
    } catch (err) {
      if (err instanceof DeadlinePassedError || !isTransientDatabaseError(err)) throw err;
      // Unreachable, shutting down, or a statement cancelled by a conflict with recovery: the
      // primary answers; a connection failure takes the replica out until a probe finds it again.
      if (!isRecoveryConflict(err)) replica.takeOut('unreachable');
      return this.onPrimary('replica_failed', read);
    }
  }

  /** A replica in rotation, in turns; for a key with a recent write, one known to have replayed it if any. */
  private pick(needed: bigint | null): Replica | undefined {
    const inRotation = this.replicas.filter((r) => r.inRotation);
    const current = needed === null ? inRotation : inRotation.filter((r) => r.replayed >= needed);
    const from = current.length ? current : inRotation;
    if (!from.length) return undefined;
    this.next = (this.next + 1) % from.length;
    return from[this.next];
  }

  /** Asks the replica for its position, at growing intervals (1, 2, 4 … ms), until it reaches `needed` or `waitMs` ends. */
  private async waitFor(replica: Replica, needed: bigint): Promise<boolean> {
    const until = this.now() + this.settings.waitMs;
    for (let pause = 1; ; pause = Math.min(pause * 2, 16)) {
      try {
        if ((await replica.refresh()) >= needed) return true;
      } catch {
        return false;
      }
      const left = until - this.now();
      if (left <= 0) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    }
  }

  private async onPrimary<T>(reason: ReadReason, read: (pool: ReadPool) => Promise<T>): Promise<T> {
    const rows = await read(this.primary);
    this.observer.read('primary', reason);
    return rows;
  }

  /** Measures every replica now; then every `probeIntervalMs` until `stop`. */
  async start(): Promise<void> {
    if (!this.replicas.length) return;
    await this.probe();
    this.timer = setInterval(() => {
      this.probing ??= this.probe().finally(() => (this.probing = undefined));
    }, this.settings.probeIntervalMs);
    this.timer.unref();
  }

  /** One probe: the primary's position, then each replica's (their lag measured against the positions read so far). */
  async probe(): Promise<void> {
    let sample: Sample | null = null;
    try {
      sample = { lsn: lsnValue(await this.primaryLsn()), at: this.now() };
    } catch {
      // The primary is unreachable: the replicas' lag cannot grow meanwhile (nothing is written).
    }
    await Promise.all(this.replicas.map((replica) => replica.probe(sample, this.settings.maxLagMs, this.now)));
    for (const replica of this.replicas) {
      this.observer.replica(replica.name, replica.lagMs === null ? null : replica.lagMs / 1000, replica.inRotation, replica.outReason);
    }
  }

  /** What `/health` and logs show of each replica. */
  describe(): { name: string; inRotation: boolean; lagMs: number | null; replayed: string | null; reason: OutOfRotation | null }[] {
    return this.replicas.map((r) => ({ name: r.name, inRotation: r.inRotation, lagMs: r.lagMs, replayed: r.replayed >= 0n ? lsnText(r.replayed) : null, reason: r.outReason }));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.probing;
    await Promise.all(this.replicas.map((r) => r.close()));
  }
}

/** SQLSTATE 40001 on a hot standby: a statement cancelled because replay needed what it read. */
function isRecoveryConflict(err: unknown): boolean {
  return (err as { code?: unknown }).code === '40001';
}
