/**
 * The fault suite, full profile (docs/adr/0028): `npm run faults` (build, then this). Each fault under
 * sustained load for longer than the short profile that `npm test` runs; prints the table and writes
 * it to bench/results/faults-<profile>.md. Exit code 1 when anything was lost, duplicated, answered
 * outside the spec's codes or hung beyond its bound.
 * Options: `-- --short` (the short profile), `-- --down 20000` (ms each fault lasts), `-- --only 'stop nats,stop redis'`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { faultTable, FaultSuite, FULL_PROFILE, REPO_ROOT, SHORT_PROFILE } from '@dc/testing';

async function main(): Promise<void> {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const base = process.argv.includes('--short') ? SHORT_PROFILE : FULL_PROFILE;
  const only = process.argv.indexOf('--only');
  const faults = only > 0 ? base.faults.filter((f) => process.argv[only + 1].split(',').includes(f)) : base.faults;
  const profile = { ...base, faults, downMs: arg('down') ?? base.downMs };
  const started = Date.now();
  const suite = await FaultSuite.start(profile);
  try {
    const duplicates = await suite.concurrentDuplicates();
    console.log(`50 identical requests at once: ${JSON.stringify(duplicates)}`);
    const rows = await suite.run((line) => console.log(line));
    const table = faultTable(rows);
    const when = new Date().toISOString();
    const text = `Fault suite, ${profile.name} profile (${when}; warm-up ${profile.warmupMs} ms, down ${profile.downMs} ms, after ${profile.afterMs} ms, ` +
      `import ${profile.importRows} rows; ${((Date.now() - started) / 1000).toFixed(0)} s)\n\n${table}\n\n50 identical requests at once: ${JSON.stringify(duplicates)}\n` +
      `${suite.notes.join('\n')}\n`;
    console.log(text);
    mkdirSync(path.join(REPO_ROOT, 'bench/results'), { recursive: true });
    writeFileSync(path.join(REPO_ROOT, `bench/results/faults-${profile.name}.md`), text);
    const bad = rows.filter((r) => r.violations.length || r.hangs || r.abandoned.length || r.paymentsLost || r.paymentsDuplicated || r.debtorsLost ||
      r.debtorsDuplicated || r.importRowsLost || r.importRowsDuplicated || r.webhookLost || r.webhookNewId || !Number.isFinite(r.recoverySeconds));
    const dupOk = duplicates.batch.processed === 1 && duplicates.payment.rows === 1 && duplicates.payment.outboxEvents === 1;
    for (const r of bad) console.log(`FAILED ${r.fault}: ${JSON.stringify(r)}`);
    process.exitCode = bad.length || !dupOk || suite.notes.length ? 1 : 0;
  } finally {
    const logs = path.join(tmpdir(), `dc-faults-logs-${process.pid}`);
    suite.writeLogs(logs);
    console.log(`warn and error log lines of every service: ${logs}`);
    await suite.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
