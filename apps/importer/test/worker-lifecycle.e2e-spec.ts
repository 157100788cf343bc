import { ServiceProcess, Stack } from '@dc/testing';
import http from 'node:http';

function getJson(port: number, path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      })
      .on('error', reject);
  });
}

describe('worker services boot, report health and stop gracefully', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await Stack.start({ apiCoreReplicas: 0, gatewayReplicas: 0 });
  });
  afterAll(() => stack?.stop());

  it.each([
    ['importer', { postgres: 'ok', redis: 'ok', storage: 'ok' }],
    ['webhook-dispatcher', { postgres: 'ok', redis: 'ok' }],
  ] as const)('%s: ready with its dependencies, exits 0 on SIGTERM', async (app, details) => {
    const service = await stack.startService(app, { HEALTH_PORT: '0' });
    const ready = await service.waitForLog((l) => l.msg === `${app} ready`);
    const port = Number(ready.healthPort);
    expect(await getJson(port, '/health/live')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await getJson(port, '/health/ready')).toEqual({ status: 200, body: { status: 'ok', details } });
    expect(await service.stop('SIGTERM')).toBe(0);
    expect(service.logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
  });

  it('a service with invalid configuration refuses to start with a clear message (exit 78)', async () => {
    const service = new ServiceProcess('gateway', { ...stack.env, PORT: 'not-a-port', NODE_ENV: 'production', OPERATOR_TOKEN: '' });
    expect(await service.exitCode()).toBe(78);
    expect(service.errorOutput).toContain('gateway: Invalid configuration');
    expect(service.errorOutput).toContain('PORT must be an integer from 0 to 65535 (got "not-a-port")');
    expect(service.errorOutput).toContain('OPERATOR_TOKEN is required in production');
  });
});
