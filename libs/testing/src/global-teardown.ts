import { rm } from 'node:fs/promises';
import { checkRecordedRun, describeExchangeReport, ExchangeContract, readExchanges } from './exchange-contract';
import { auditLogDirectory, describeFindings } from './log-audit';
import { dropDatabase } from './test-database';

/**
 * Drops the run's template database, then searches every service's log output of the run for
 * secrets and personal data (log-audit.ts), and checks every exchange the public listeners recorded
 * against docs/openapi.json (docs/adr/0030): any finding or mismatch fails the run and
 * keeps the logs and exchanges to read.
 */
export default async function globalTeardown(): Promise<void> {
  if (process.env.DC_TEST_TEMPLATE) await dropDatabase(process.env.DC_TEST_TEMPLATE);
  const dir = process.env.DC_TEST_LOG_DIR;
  if (!dir) return;
  const failures: string[] = [];
  const findings = await auditLogDirectory(dir);
  if (findings.length) failures.push(describeFindings(dir, findings));
  const recorded = await readExchanges(dir);
  if (recorded) {
    const report = checkRecordedRun(ExchangeContract.load(), recorded);
    const text = describeExchangeReport(report);
    if (report.mismatches.length) failures.push(`${text}
  (exchanges kept in ${dir})`);
    else process.stdout.write(`\n${text}\n`);
  }
  if (failures.length) throw new Error(failures.join('\n\n'));
  await rm(dir, { recursive: true, force: true });
}
