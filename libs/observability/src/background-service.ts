import { AppConfig, loadConfigOrExit } from '@dc/config';
import { Logger } from 'pino';
import { BearerTokens } from './bearer-tokens';
import { MetricsSource, ReadinessCheck, HealthServer } from './health-server';
import { createLogger } from './logger';
import { installRuntimePatches, logRuntimePatches, RuntimePatch } from './runtime-patches';
import { onShutdownSignal } from './shutdown';

/** What a background service's start function hands back: its readiness checks and how to stop it. */
export interface RunningService {
  checks: Record<string, ReadinessCheck>;
  /** Served at `GET /metrics` on the health port when given. */
  metrics?: MetricsSource;
  /** Stops taking work and closes connections; runs once, after readiness turns to draining. */
  stop: () => Promise<void>;
}

/**
 * The life cycle shared by the background services (importer, webhook-dispatcher): configuration
 * validated at start-up (exit 78 with a message naming the variable), one logger, a health server
 * over the service's checks (and its metrics, when it has any), the service's runtime patches
 * installed first (and named in a log line), `<name> ready` once started,
 * graceful shutdown on SIGTERM/SIGINT, and a start-up failure reported on stderr with exit code 1.
 */
export function runBackgroundService(
  name: string,
  patches: readonly RuntimePatch[],
  start: (config: AppConfig, logger: Logger) => Promise<RunningService>,
): void {
  const run = async () => {
    const config = loadConfigOrExit(name);
    const installed = installRuntimePatches(patches, config.runtimePatchesOff);
    const logger = createLogger(config.serviceName, config.logLevel, { format: config.logFormat, bufferBytes: config.logBufferBytes });
    logRuntimePatches(logger, installed);
    const service = await start(config, logger);
    const health = new HealthServer(service.checks, { metrics: service.metrics, metricsAccess: metricsAccess(config) });
    const healthPort = await health.listen(config.health.port);
    logger.info({ healthPort }, `${name} ready`);

    onShutdownSignal(logger, config.shutdownGraceMs, async () => {
      health.startDraining();
      await service.stop();
      await health.close();
    });
  };
  void run().catch((err: unknown) => {
    process.stderr.write(`${name} failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}

/** `/metrics` is for a bearer of METRICS_TOKEN (a scrape-only credential) or of the operator token. */
export function metricsAccess(config: AppConfig): BearerTokens {
  return new BearerTokens([config.metricsToken, config.gateway.operatorToken]);
}
