import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { BearerTokens, METRICS_UNAUTHORIZED_BODY } from './bearer-tokens';

export type ReadinessCheck = () => Promise<void>;

/** A service's Prometheus exposition (e.g. prom-client's `registry.contentType` and `registry.metrics()`). */
export type MetricsSource = () => Promise<{ contentType: string; body: string }>;

export interface HealthServerOptions {
  /** When given, `GET /metrics` answers with it (500 when collecting fails). */
  metrics?: MetricsSource;
  /** Who may read `/metrics` (401 for anyone else); required with `metrics`. */
  metricsAccess?: BearerTokens;
}

/**
 * A small HTTP listener for services that have no HTTP API of their own (api-core and the
 * workers): `GET /health/live` answers while the process runs; `GET /health/ready` runs every
 * check and answers 503 with the failing dependency when one fails or the service is draining;
 * `GET /metrics` serves the service's metrics when it has any, to a bearer of the metrics or
 * operator token.
 */
export class HealthServer {
  private server?: Server;
  private draining = false;

  constructor(
    private readonly checks: Record<string, ReadinessCheck>,
    private readonly options: HealthServerOptions = {},
  ) {}

  async listen(port: number, host = '0.0.0.0'): Promise<number> {
    this.server = createServer((req, res) => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/health/live') return send(200, { status: 'ok' });
      if (req.url === '/health/ready') {
        void this.readiness().then(({ ok, details }) => send(ok ? 200 : 503, { status: ok ? 'ok' : 'unavailable', details }));
        return;
      }
      const metrics = this.options.metrics;
      if (req.url === '/metrics' && metrics) {
        if (!this.options.metricsAccess?.accepts(req.headers.authorization)) return send(401, METRICS_UNAUTHORIZED_BODY);
        void metrics().then(
          ({ contentType, body }) => {
            res.writeHead(200, { 'content-type': contentType });
            res.end(body);
          },
          (err: unknown) => send(500, { status: 'error', message: err instanceof Error ? err.message : 'metrics failed' }),
        );
        return;
      }
      send(404, { status: 'not_found' });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, host, resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** From now on readiness fails, so load balancers stop sending work while we drain. */
  startDraining(): void {
    this.draining = true;
  }

  async readiness(): Promise<{ ok: boolean; details: Record<string, string> }> {
    const details: Record<string, string> = {};
    if (this.draining) return { ok: false, details: { shutdown: 'draining' } };
    await Promise.all(
      Object.entries(this.checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), 2_000);
          details[name] = 'ok';
        } catch (err) {
          details[name] = err instanceof Error ? err.message : 'failed';
        }
      }),
    );
    return { ok: Object.values(details).every((v) => v === 'ok'), details };
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
