import type { Logger } from '@dc/observability';
import { NatsRpcServer, withTimeout } from '@dc/transport';

/**
 * Keeps the replica in its NATS queue group only while it can reach Postgres: a replica that
 * cannot would fail every request NATS routes to it, so it leaves (requests go to the other
 * replicas, or get "no responders" — 503 at once — when none is left) and rejoins once a probe
 * succeeds again. One probe decides either way; probes never overlap.
 */
export class PostgresGate {
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly probe: () => Promise<void>,
    private readonly server: NatsRpcServer,
    private readonly logger: Logger,
    private readonly intervalMs: number,
    private readonly probeTimeoutMs: number,
  ) {}

  async check(): Promise<void> {
    let error: string | undefined;
    try {
      await withTimeout(this.probe(), this.probeTimeoutMs, 'postgres probe');
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    if (error !== undefined && this.server.inQueueGroup) {
      await this.server.leaveQueueGroup(); // resolves once NATS has taken the unsubscription
      this.logger.warn({ err: error }, 'left the queue group: postgres unreachable');
    } else if (error === undefined && !this.server.inQueueGroup && !this.stopped) {
      this.server.joinQueueGroup();
      this.logger.info('rejoined the queue group: postgres reachable');
    }
  }

  start(): void {
    const next = () => {
      this.timer = setTimeout(() => void this.check().finally(() => !this.stopped && next()), this.intervalMs);
    };
    next();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
