import { tmpdir } from 'node:os';
import path from 'node:path';
import { faultTable, FaultRow, FaultSuite, SHORT_PROFILE } from '@dc/testing';

/**
 * docs/adr/0028: the fault suite's short profile. Every fault kind once,
 * under a mixed load through the gateway, against private Redis, NATS and Postgres servers; then
 * 0 lost and 0 duplicated everywhere, no answer outside the spec's envelope codes, no request over
 * its documented bound. `npm run faults` runs the full profile.
 */
jest.setTimeout(240_000);

const verdict = (r: FaultRow) => ({
  fault: r.fault,
  violations: r.violations,
  hangs: r.hangs,
  abandoned: r.abandoned,
  paymentsLost: r.paymentsLost,
  paymentsDuplicated: r.paymentsDuplicated,
  debtorsLost: r.debtorsLost,
  debtorsDuplicated: r.debtorsDuplicated,
  importRows: r.importRows,
  importRowsLost: r.importRowsLost,
  importRowsDuplicated: r.importRowsDuplicated,
  webhookLost: r.webhookLost,
  webhookNewId: r.webhookNewId,
  recovered: Number.isFinite(r.recoverySeconds),
});

describe('faults (short profile)', () => {
  let suite: FaultSuite;

  beforeAll(async () => {
    suite = await FaultSuite.start(SHORT_PROFILE);
  }, 120_000);
  afterAll(async () => {
    if (suite) {
      const logs = path.join(tmpdir(), `dc-faults-logs-${process.pid}`);
      suite.writeLogs(logs);
      console.log(`warn and error log lines of every service: ${logs}`);
    }
    await suite?.stop();
  });

  it('50 identical batches with one Idempotency-Key and 50 identical payments sent at once are each processed once', async () => {
    const result = await suite.concurrentDuplicates();
    console.log(`50 identical requests at once: ${JSON.stringify(result)}`);
    // One run; every other request is a replay of its answer, or 409 while it was still running.
    expect(result.batch.processed).toBe(1);
    expect(result.batch.replays + result.batch.conflicts).toBe(49);
    expect(result.batch.bodiesIdentical).toBe(true);
    expect(result.batch.debtors).toBe(20);
    // One 201; the others get the existing payment (200); one row, one event, one delivery, one delivery id.
    expect(result.payment.statuses).toEqual({ 201: 1, 200: 49 });
    expect(result.payment).toMatchObject({ rows: 1, outboxEvents: 1, deliveries: 1, received: 1 });
  });

  it('every fault kind under load: 0 lost, 0 duplicated, only spec envelope errors, no hang beyond the bound', async () => {
    const rows = await suite.run((line) => console.log(line));
    console.log(`fault suite, ${SHORT_PROFILE.name} profile\n${faultTable(rows)}${suite.notes.length ? `\n${suite.notes.join('\n')}` : ''}`);
    expect(rows.map(verdict)).toEqual(rows.map((r) => ({
      ...verdict(r), violations: [], hangs: 0, abandoned: [], paymentsLost: 0, paymentsDuplicated: 0, debtorsLost: 0, debtorsDuplicated: 0,
      importRows: SHORT_PROFILE.importRows, importRowsLost: 0, importRowsDuplicated: 0, webhookLost: 0, webhookNewId: 0, recovered: true,
    })));
    // The load really ran through every fault, and the importer was killed mid-import.
    for (const r of rows) expect(r.paymentsAcked).toBeGreaterThan(0);
    expect(rows.find((r) => r.fault === 'kill -9 importer')?.importHit).toBe(true);
    expect(suite.notes).toEqual([]);
  });
});
