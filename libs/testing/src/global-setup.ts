import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { accepts } from './ports';
import { GATEWAY_TEST_ENTRY, REPO_ROOT } from './service-process';
import { APP_ROLE, createTemplateDatabase, ensureAppRole } from './test-database';

/**
 * Once per run (Jest's global setup, or a benchmark): the services answer, the apps are built,
 * and a template database of this run is migrated. Its name goes to DC_TEST_TEMPLATE, which
 * Jest workers and Stack inherit; drop it at the end (global teardown).
 */
export async function prepareTemplateDatabase(): Promise<string> {
  const missing: string[] = [];
  for (const [name, port] of [['PostgreSQL', 5432], ['Redis', 6379], ['NATS', 4222]] as const) {
    if (!(await accepts(port))) missing.push(`${name} (127.0.0.1:${port})`);
  }
  if (missing.length) throw new Error(`End-to-end tests need ${missing.join(', ')}; start them (see README).`);
  if (!existsSync(path.join(REPO_ROOT, GATEWAY_TEST_ENTRY))) {
    throw new Error('The apps are not built: run `npm run build` first (npm run test:e2e does).');
  }
  const name = `dc_tpl_${process.pid}_${randomBytes(3).toString('hex')}`;
  process.env.DC_TEST_TEMPLATE = name;
  // The same one-shot migration step operators run (scripts/migrate.js), against the template, as
  // the admin; it grants the apps' role, which every stack's services log in as (docs/adr/0027).
  await ensureAppRole();
  const url = await createTemplateDatabase(name);
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts/migrate.js')], {
    env: { ...process.env, DATABASE_URL: url, DATABASE_APP_ROLE: APP_ROLE },
    stdio: 'pipe',
  });
  return name;
}

export default async function globalSetup(): Promise<void> {
  await prepareTemplateDatabase();
  // Every service's output of this run, searched for secrets by the global teardown (log-audit.ts).
  process.env.DC_TEST_LOG_DIR = await mkdtemp(path.join(tmpdir(), 'dc-e2e-logs-'));
}
