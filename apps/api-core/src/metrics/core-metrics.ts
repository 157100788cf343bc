import { createMetricsRegistry } from '@dc/observability';
import type { OutOfRotation, ReadReason, ReadRoutingObserver, ReadTarget } from '@dc/database';
import { Counter, Gauge, Histogram } from 'prom-client';

/**
 * Prometheus metrics of api-core, served at GET /metrics on its health port (docs/observability.md):
 * handler duration by RPC pattern and outcome, requests in flight, requests shed at max
 * concurrency, where public reads ran (primary or replica) and each replica's lag (docs/adr/0050),
 * and the process defaults.
 */
export class CoreMetrics implements ReadRoutingObserver {
  readonly registry = createMetricsRegistry();

  readonly handlerDuration = new Histogram({
    name: 'api_core_rpc_duration_seconds',
    help: 'Handling of RPC requests, by pattern and outcome (ok, or the error code of the reply), from the handler being called to its reply.',
    labelNames: ['pattern', 'outcome'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly shed = new Counter({
    name: 'api_core_rpc_shed_total',
    help: 'Requests refused unrun with service_unavailable because the replica already ran API_CORE_MAX_CONCURRENCY requests (docs/adr/0014), by pattern.',
    labelNames: ['pattern'],
    registers: [this.registry],
  });

  private inFlightSource: () => number = () => 0;

  readonly inFlight: Gauge = new Gauge({
    name: 'api_core_rpc_in_flight',
    help: 'Requests taken and not yet answered, at scrape time.',
    registers: [this.registry],
    collect: () => this.inFlight.set(this.inFlightSource()),
  });

  /** Where api_core_rpc_in_flight reads from (the NATS server). */
  readInFlightFrom(source: () => number): void {
    this.inFlightSource = source;
  }

  handled(pattern: string, outcome: string, seconds: number): void {
    this.handlerDuration.observe({ pattern, outcome }, seconds);
  }

  readonly reads = new Counter({
    name: 'api_core_db_reads_total',
    help: 'Public list and by-id reads by where they ran (replica, primary) and why (ReadReason: replica, replica_caught_up, no_replica, replica_behind, writes_unknown, replica_failed).',
    labelNames: ['target', 'reason'],
    registers: [this.registry],
  });

  readonly replicaWait = new Histogram({
    name: 'api_core_read_your_writes_wait_seconds',
    help: "Reads that waited for a replica to replay their API key's last write: the wait, by where they then ran (replica, or primary when DATABASE_REPLICA_WAIT_MS passed).",
    labelNames: ['target'],
    buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });

  readonly replicaLag = new Gauge({
    name: 'api_core_replica_lag_seconds',
    help: "Each replica's lag behind the primary as this replica of api-core last measured it (the age of the oldest primary position it had not replayed); absent while unreachable.",
    labelNames: ['replica'],
    registers: [this.registry],
  });

  readonly replicaInRotation = new Gauge({
    name: 'api_core_replica_in_rotation',
    help: 'Whether reads go to the replica (1), or not (0, with the reason: lagging, unreachable, not_in_recovery).',
    labelNames: ['replica', 'reason'],
    registers: [this.registry],
  });

  readonly writesUnrecorded = new Counter({
    name: 'api_core_write_positions_unrecorded_total',
    help: "Writes answered without their WAL position recorded for their API key's reads (Redis unreachable): those reads may miss them on a replica within DATABASE_REPLICA_MAX_LAG_MS.",
    registers: [this.registry],
  });

  unrecorded(): void {
    this.writesUnrecorded.inc();
  }

  read(target: ReadTarget, reason: ReadReason): void {
    this.reads.inc({ target, reason });
  }

  waited(seconds: number, target: ReadTarget): void {
    this.replicaWait.observe({ target }, seconds);
  }

  replica(name: string, lagSeconds: number | null, inRotation: boolean, reason: OutOfRotation | null): void {
    if (lagSeconds === null) this.replicaLag.remove({ replica: name });
    else this.replicaLag.set({ replica: name }, lagSeconds);
    // One series per replica: the reason label of the state it left is removed.
    for (const other of ['', 'lagging', 'unreachable', 'not_in_recovery']) this.replicaInRotation.remove({ replica: name, reason: other });
    this.replicaInRotation.set({ replica: name, reason: reason ?? '' }, inRotation ? 1 : 0);
  }
}
