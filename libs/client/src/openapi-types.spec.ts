import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The committed types are what openapi-typescript makes of docs/openapi.json today (no drift). The
 * generator is ESM (openapi-typescript loads ESM-only modules), so it runs in its own node process.
 */
const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const GENERATOR = 'libs/client/generate/generate.mjs';
const TYPES = 'libs/client/src/generated/openapi.d.ts';

describe('generated/openapi.d.ts', () => {
  it('is what `npm run client:generate` writes from the current docs/openapi.json', async () => {
    const { stdout } = await run(process.execPath, [path.join(ROOT, GENERATOR), '--check']);
    expect(stdout).toBe(`${TYPES} matches docs/openapi.json\n`);
  }, 60_000);

  it('the check fails once the file differs by one line', async () => {
    // The generator in a copy of the layout, so the real file is never touched.
    const copy = await mkdtemp(path.join(tmpdir(), 'dc-client-drift-'));
    const at = (p: string) => path.join(copy, p);
    try {
      await Promise.all(['libs/client/generate', 'libs/client/src/generated', 'docs'].map((d) => mkdir(at(d), { recursive: true })));
      await copyFile(path.join(ROOT, GENERATOR), at(GENERATOR));
      await copyFile(path.join(ROOT, 'docs/openapi.json'), at('docs/openapi.json'));
      await symlink(path.join(ROOT, 'node_modules'), at('node_modules'));
      expect((await run(process.execPath, [at(GENERATOR)])).stdout).toBe(`wrote ${TYPES}\n`);
      expect((await run(process.execPath, [at(GENERATOR), '--check'])).stdout).toBe(`${TYPES} matches docs/openapi.json\n`);

      const fresh = await readFile(at(TYPES), 'utf8');
      await writeFile(at(TYPES), fresh.replace('export interface paths {', 'export interface paths { // edited'));
      await expect(run(process.execPath, [at(GENERATOR), '--check'])).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/^libs\/client\/src\/generated\/openapi\.d\.ts is out of date with docs\/openapi\.json \(first difference at line \d+\)/),
      });
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  }, 60_000);
});
