import { Logger } from 'pino';

/**
 * Runs `stop` once on SIGTERM/SIGINT, then exits. A second signal, or a stop that outlasts
 * `graceMs`, exits at once so an orchestrator never waits forever.
 */
export function onShutdownSignal(logger: Logger, graceMs: number, stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ graceMs }, 'shutdown took too long: exiting');
      process.exit(1);
    }, graceMs + 5_000);
    timer.unref();
    const exit = (code: number) => logger.flush(() => process.exit(code));
    stop(signal).then(
      () => {
        logger.info('stopped');
        exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
