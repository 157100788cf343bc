import type { Logger } from '@dc/observability';

/** What one pass reports: `more` runs the next pass at once (a full batch), `idle` waits the interval. */
export type PassResult = 'more' | 'idle';

export interface PollingLoopOptions {
  name: string;
  intervalMs: number;
  /** Delay before the first pass (0: at once). */
  initialDelayMs?: number;
  /** Longest wait after consecutive failed passes (the wait doubles from intervalMs up to this; default 5 s). */
  maxBackoffMs?: number;
}

/**
 * Runs `pass` repeatedly: again at once when it reports more work, after `intervalMs` when idle,
 * with a growing delay after failures (logged, never thrown). Passes never overlap; `stop()`
 * resolves once the pass in progress (if any) has ended, and no other starts.
 */
export class PollingLoop {
  private timer?: NodeJS.Timeout;
  private current?: Promise<void>;
  private stopped = true;
  private stopRequested = false;
  private failures = 0;

  constructor(
    private readonly pass: () => Promise<PassResult>,
    private readonly logger: Logger,
    private readonly options: PollingLoopOptions,
  ) {}

  /** True from `stop()` until the next `start()`: a pass in progress may end early on it. */
  get stopping(): boolean {
    return this.stopRequested;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopRequested = false;
    this.schedule(this.options.initialDelayMs ?? 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopRequested = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
  }

  private schedule(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.current = this.runOnce().finally(() => (this.current = undefined));
    }, delayMs);
  }

  private async runOnce(): Promise<void> {
    let next = this.options.intervalMs;
    try {
      const result = await this.pass();
      this.failures = 0;
      if (result === 'more') next = 0;
    } catch (err) {
      this.failures += 1;
      const ceiling = Math.max(this.options.intervalMs, this.options.maxBackoffMs ?? 5_000);
      next = Math.min(ceiling, this.options.intervalMs * 2 ** Math.min(this.failures, 10));
      this.logger.warn({ err: err instanceof Error ? err.message : String(err), loop: this.options.name, failures: this.failures, retryInMs: next }, `${this.options.name} pass failed`);
    }
    if (!this.stopped) this.schedule(next);
  }
}
