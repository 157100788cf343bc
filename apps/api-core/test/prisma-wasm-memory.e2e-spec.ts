import { createTestDatabase, REPO_ROOT } from '@dc/testing';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Prisma's query compiler (WebAssembly) stays on V8's baseline tier (the runtime patch `wasm-liftoff-only` compiles WebAssembly
 * with Liftoff only, docs/adr/0035): TurboFan's tier-up of it held 40–60 MiB of resident memory per
 * process. A fresh process (the built library, as the apps run it) makes Prisma queries, gives the
 * background compilers time, and reports its largest anonymous mapping: with tier-up 38.6–38.9 MiB
 * (10 runs), on Liftoff alone 4.4 MiB in 64 of 65 runs and 16.6 MiB once (a compile thread's malloc
 * arena), hence the bound between the two.
 */
const PROBE = `
const { compileWasmWithLiftoffOnly, Database } = require(${JSON.stringify(path.join(REPO_ROOT, 'dist/libs/database/src'))});
compileWasmWithLiftoffOnly(); // the runtime patch, as every service with a database installs it at start-up
const fs = require('node:fs');
(async () => {
  const db = new Database(process.env.PROBE_DATABASE_URL, 2);
  await db.client.$queryRaw\`SELECT 1\`;
  for (let i = 0; i < 20; i += 1) {
    await db.client.organization.findFirst({ where: { id: 'org_' + i }, include: { portfolios: true } });
    await db.client.apiKey.findMany({ where: { organizationId: 'org_' + i }, take: 5 });
  }
  await new Promise((resolve) => setTimeout(resolve, 1500));
  let largest = 0, current = null;
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) current = line.trim().split(/\\s+/).length === 5;
    else if (current && line.startsWith('Rss:')) largest = Math.max(largest, Number(line.split(/\\s+/)[1]) / 1024);
  }
  await db.close();
  console.log(JSON.stringify({ largestAnonymousMiB: largest }));
})().catch((err) => { console.error(err); process.exit(1); });
`;

describe("Prisma's WebAssembly stays on the baseline tier", () => {
  it('no anonymous mapping of the process reaches 24 MiB after Prisma queries (with tier-up: 39 MiB)', async () => {
    const testDb = await createTestDatabase();
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['-e', PROBE], { env: { PATH: process.env.PATH ?? '', PROBE_DATABASE_URL: testDb.appUrl } });
      const { largestAnonymousMiB } = JSON.parse(stdout) as { largestAnonymousMiB: number };
      expect(largestAnonymousMiB).toBeLessThan(24);
    } finally {
      await testDb.drop();
    }
  });
});
