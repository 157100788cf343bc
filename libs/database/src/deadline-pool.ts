import { Pool, PoolClient, PoolConfig } from 'pg';
import { AppError, ErrorCode } from '@dc/contracts';

/** Thrown instead of a connection once the caller's deadline has passed: nothing is started. */
export class DeadlinePassedError extends AppError {
  constructor() {
    super(ErrorCode.ServiceUnavailable, 'The caller stopped waiting for this request before its database work could start.');
  }
}

/**
 * A pool that hands out no connection after the current request's deadline, so no statement or
 * transaction starts for a caller that has given up (a plain query takes its connection through
 * `connect` too). This bounds how long after its deadline a request can still write.
 */
export class DeadlinePool extends Pool {
  constructor(
    config: PoolConfig,
    private readonly deadline: () => number | undefined = () => undefined,
  ) {
    super(config);
    // The pool listens for errors of idle clients only. A client checked out between two statements
    // (an interactive transaction running JS) that loses its connection emits 'error' with no
    // listener, which ended api-core when Postgres stopped (fault suite, docs/adr/0028). Its next
    // query fails instead, and the pool discards it on release.
    this.on('connect', (client) => client.on('error', () => undefined));
  }

  override connect(): Promise<PoolClient>;
  override connect(callback: (err: Error | undefined, client: PoolClient | undefined, done: (release?: any) => void) => void): void;
  override connect(callback?: (err: Error | undefined, client: PoolClient | undefined, done: (release?: any) => void) => void): Promise<PoolClient> | void {
    const deadline = this.deadline();
    if (deadline !== undefined && Date.now() >= deadline) {
      const err = new DeadlinePassedError();
      if (!callback) return Promise.reject(err);
      process.nextTick(() => callback(err, undefined, () => undefined));
      return;
    }
    return callback ? super.connect(callback) : super.connect();
  }
}
