import type { ImportView } from '@dc/contracts';
import { createTenant, generateCsv, generatedHeader, identityMapping, OperatorClient, Stack, Tenant, withDatabase } from '@dc/testing';
import { ImportClient, importStackEnv, startImporter } from './import-kit';

/**
 * One tenant's backlog never holds another tenant's next import (docs/adr/0043): jobs are
 * prioritised by their place in their organization, a running import yields after a chunk when
 * another organization's import waits, and an organization runs at most
 * IMPORT_MAX_RUNNING_PER_ORGANIZATION imports at once over the whole fleet.
 */
describe('importer: fair shares across organizations', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let busy: Tenant;
  let quiet: Tenant;

  const ROWS = 40_000;
  const BACKLOG = 8;

  /** Imports of the organization that an importer is running now (their advisory lock is held). */
  const running = (organizationId: string) =>
    withDatabase(stack.databaseUrl, async (c) => (await c.query(
      `SELECT count(*)::int AS n FROM imports i JOIN portfolios p ON p.id = i.portfolio_id
       JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
         AND l.classid = ((hashtextextended('import:' || i.id, 0) >> 32) & 4294967295)::oid
         AND l.objid = (hashtextextended('import:' || i.id, 0) & 4294967295)::oid
       WHERE p.organization_id = $1`, [organizationId])).rows[0].n as number);

  beforeAll(async () => {
    stack = await Stack.start({ env: importStackEnv() });
    operator = new OperatorClient(stack.operatorUrl);
    [busy, quiet] = [await createTenant(operator, { name: 'Busy' }), await createTenant(operator, { name: 'Quiet' })];
  }, 60_000);
  afterAll(() => stack?.stop());

  it("a quiet tenant's 3-row import finishes within 20 s while another has eight 40,000-row imports queued; the busy tenant runs one at a time, even with an importer free", async () => {
    // One importer, one import at a time (the default): the quiet import can only run if the busy one yields.
    const importers = [await startImporter(stack)];
    const busyClient = new ImportClient(stack, busy.key);
    const file = generateCsv(ROWS, { prefix: 'busy', email: false });
    const storageKey = await busyClient.upload(busy.portfolioIds[0], file);
    const backlog: ImportView[] = [];
    for (let i = 0; i < BACKLOG; i += 1) backlog.push(await busyClient.enqueue(busy.portfolioIds[0], storageKey, identityMapping(generatedHeader({ email: false })), 'add'));

    // Watch the busy organization's running imports for the whole test.
    let peak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await running(busy.organizationId));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      // The backlog is under way.
      for (let view = backlog[0]; !(view.status === 'processing' && view.processedRows > 0); ) {
        await new Promise((r) => setTimeout(r, 100));
        view = (await busyClient.get(`/imports/${backlog[0].id}`)).body.data as ImportView;
        expect(view.status).not.toBe('failed');
      }

      const quietClient = new ImportClient(stack, quiet.key);
      const started = Date.now();
      const done = await quietClient.load(quiet.portfolioIds[0], generateCsv(3, { prefix: 'quiet', email: false }), identityMapping(generatedHeader({ email: false })), 'add', 20_000);
      const elapsed = Date.now() - started;
      expect(done).toMatchObject({ status: 'completed', created: 3, errors: 0 });
      expect(elapsed).toBeLessThan(20_000);
      // The backlog was still there: the quiet tenant did not wait for it.
      const unfinished = (await Promise.all(backlog.map(async (b) => (await busyClient.get(`/imports/${b.id}`)).body.data as ImportView)))
        .filter((v) => v.status === 'queued' || v.status === 'processing');
      expect(unfinished.length).toBeGreaterThanOrEqual(BACKLOG - 2);
      // A second importer: the busy organization still runs one import at a time (its default share).
      importers.push(await startImporter(stack));
      await new Promise((r) => setTimeout(r, 4_000));
      expect(peak).toBe(1);
    } finally {
      sampling = false;
      await sampler;
      for (const b of backlog) await operator.request('POST', `/imports/${b.id}/cancel`);
      await Promise.all(importers.map((p) => p.stop()));
    }
  }, 120_000);
});
