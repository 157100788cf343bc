import { AppName, ServiceProcess, Stack } from '@dc/testing';
import { randomBytes } from 'node:crypto';
import { BaselineEnv } from './protocol';

/**
 * A baseline's two processes, `bare-gateway` and its service, started from dist/ against the
 * stack's NATS and database (a subject prefix of their own, a pool of `poolSize`) with `env` on top,
 * each handed to `onStop` to be killed when the bench ends. Resolves once the service is ready and
 * the gateway listens, with the gateway's URL; their logs are no longer kept after that.
 */
export async function startBaseline(
  service: 'bare-pg-service' | 'bare-write-service',
  stack: Stack,
  poolSize: number,
  extraEnv: Record<string, string>,
  onStop: (stop: () => Promise<unknown>) => void,
): Promise<{ service: ServiceProcess; gateway: ServiceProcess; url: string }> {
  const env = {
    [BaselineEnv.natsUrl]: stack.env.NATS_URL,
    [BaselineEnv.subjectPrefix]: `bare${process.pid}${randomBytes(3).toString('hex')}`,
    [BaselineEnv.port]: '0',
    [BaselineEnv.databaseUrl]: stack.databaseUrl,
    [BaselineEnv.poolSize]: String(poolSize),
    [BaselineEnv.requestTimeoutMs]: stack.env.NATS_REQUEST_TIMEOUT_MS,
    ...extraEnv,
  };
  // ServiceProcess runs any compiled entry; its app name only labels its errors.
  const bareService = new ServiceProcess(service as AppName, env, [], `dist/bench/baseline/${service}.js`);
  onStop(() => bareService.stop('SIGKILL'));
  const bareGateway = new ServiceProcess('bare-gateway' as AppName, env, [], 'dist/bench/baseline/bare-gateway.js');
  onStop(() => bareGateway.stop('SIGKILL'));
  await bareService.waitForLog((l) => l.msg === `${service} ready`);
  const url = `http://127.0.0.1:${String((await bareGateway.waitForLog((l) => l.msg === 'bare-gateway listening')).port)}`;
  bareService.retainLogs = bareGateway.retainLogs = false;
  return { service: bareService, gateway: bareGateway, url };
}
