import { rm } from 'node:fs/promises';
import { auditLogDirectory, describeFindings } from './log-audit';
import { dropDatabase } from './test-database';

/**
 * Drops the run's template database, then searches every service's log output of the run for
 * secrets and personal data (issue 14): any finding fails the run and keeps the logs to read.
 */
export default async function globalTeardown(): Promise<void> {
  if (process.env.DC_TEST_TEMPLATE) await dropDatabase(process.env.DC_TEST_TEMPLATE);
  const dir = process.env.DC_TEST_LOG_DIR;
  if (!dir) return;
  const findings = await auditLogDirectory(dir);
  if (findings.length) throw new Error(describeFindings(dir, findings));
  await rm(dir, { recursive: true, force: true });
}
