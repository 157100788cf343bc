import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SERVICE_NODE_ARGS } from '@dc/observability';
import { AppName, REPO_ROOT, ServiceProcess } from './service-process';

/**
 * Heap options work only on node's command line (docs/adr/0037), so every place that starts a
 * service must give them: the image, `npm run start:all` and the test stack.
 */
const APPS: AppName[] = ['gateway', 'api-core', 'importer', 'webhook-dispatcher'];
const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

describe('every service starts with its node options', () => {
  it.each(APPS)('docker/Dockerfile: the %s image runs node with them', (app) => {
    const stage = read('docker/Dockerfile').split(/^FROM /m).find((s) => s.startsWith(`runtime AS ${app}\n`));
    const cmd = /^CMD (\[.*\])$/m.exec(stage ?? '')?.[1];
    expect(cmd && JSON.parse(cmd)).toEqual(['node', ...(SERVICE_NODE_ARGS[app] ?? []), `dist/apps/${app}/src/main.js`]);
  });

  it('scripts/start-all.js passes them', () => {
    expect(read('scripts/start-all.js')).toContain("[...(SERVICE_NODE_ARGS[app] ?? []), path.join(__dirname, '..', 'dist', 'apps', app, 'src', 'main.js')]");
  });

  it('the test stack passes them (ServiceProcess), before any other option', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dc-node-args-'));
    try {
      const entry = path.join(dir, 'argv.js');
      writeFileSync(entry, 'console.log(JSON.stringify({ msg: "argv", execArgv: process.execArgv }));\n');
      const service = new ServiceProcess('gateway', {}, ['--no-warnings'], path.relative(REPO_ROOT, entry));
      const line = await service.waitForLog((l) => l.msg === 'argv');
      expect(line.execArgv).toEqual([...SERVICE_NODE_ARGS.gateway, '--no-warnings']);
      expect(await service.exitCode()).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
