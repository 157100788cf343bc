import { generateCsv, generatedHeader, identityMapping, sendUpload } from '../import-client';
import type { NoisyNeighbourProfile } from './profile';
import { sleep } from '../faults/load';
import { paced, TenantApi } from './tenant-api';

/** Tenant B: an ordinary integration, with the portfolios and debtors its mix uses. */
export interface QuietTenant {
  key: string;
  organizationId: string;
  /** Reads, batches and payments. */
  portfolioId: string;
  /** Its imports (mode add: a fresh portfolio keeps its reads unchanged). */
  importPortfolioId: string;
  debtorIds: string[];
}

/** One run of B's mix. */
export interface MixRun {
  label: 'quiet' | 'beside';
  startedAt: number;
  endedAt: number;
  api: TenantApi;
  paymentIds: string[];
  importId?: string;
}

export const debtorOf = (externalId: string) => ({
  externalId,
  identityFirstName: 'Ana',
  identityDocumentType: 'national_id',
  identityDocumentNumber: `D-${externalId}`,
  debts: [{ externalId: `${externalId}-d`, totalAmount: 100, currency: 'EUR' }],
});

/** B's reads: a page of debtors, a page of payments, one debtor. */
const readsOf = (b: QuietTenant) => [
  `/debtors?portfolioId=${b.portfolioId}&limit=20`,
  `/payments?portfolioId=${b.portfolioId}&limit=20`,
  ...b.debtorIds.slice(0, 5).map((id) => `/debtors/${id}`),
];

const paymentOf = (b: QuietTenant, externalId: string, i: number) => ({
  portfolioId: b.portfolioId, debtorId: b.debtorIds[i % b.debtorIds.length], externalId, amount: 25, paymentDate: '2026-11-01', method: 'card',
});

/**
 * Each of B's requests once, not measured: the first ones pay for cold paths (the key's lookup,
 * prepared statements, the first connection to B's receiver), which would inflate only the quiet
 * run's figures. Answers the warm-up payment's id (its webhook is worth awaiting too).
 */
export async function warmUp(publicUrl: string, b: QuietTenant): Promise<string | undefined> {
  const api = new TenantApi(publicUrl, b.key);
  for (const path of readsOf(b)) await api.send('read', 'GET', path);
  await api.send('batch', 'POST', `/portfolios/${b.portfolioId}/debtors`, { debtors: [debtorOf('b-warm-up')] }, { 'idempotency-key': 'b-warm-up' });
  const payment = await api.send('payment', 'POST', '/payments', paymentOf(b, 'b-warm-up', 0));
  return payment.status === 201 ? (payment.body.data.id as string) : undefined;
}

/**
 * B's mix, the same each time: paced reads (a page of debtors, a page of payments, one debtor),
 * payments (each a `payment.registered` webhook to B's receiver) and 10-debtor batches spread over the
 * run, and one small import enqueued `importAtMs` into it. Every loop ends by itself within `mixMs`;
 * `onImportQueued` runs right after the import's 202 (the suite looks at what A is doing then).
 */
export async function runMix(
  publicUrl: string, b: QuietTenant, profile: NoisyNeighbourProfile, label: MixRun['label'], onImportQueued: (importId: string) => Promise<void>,
): Promise<MixRun> {
  const api = new TenantApi(publicUrl, b.key);
  const run: MixRun = { label, startedAt: Date.now(), endedAt: 0, api, paymentIds: [] };
  const until = run.startedAt + profile.mixMs;
  const never = () => false;
  const reads = readsOf(b);
  const readCount = Math.floor((profile.mixMs / 1000) * profile.readsPerSecond);

  const importer = async () => {
    await sleep(profile.importAtMs);
    const header = generatedHeader({ email: false });
    const target = await api.send('import', 'POST', `/portfolios/${b.importPortfolioId}/imports/upload-url`, {});
    if (target.status !== 201) return;
    const put = await sendUpload(target.body.data, generateCsv(profile.importRows, { prefix: `b-${label}`, email: false }));
    if (put.status !== 200) api.answers.push({ kind: 'import upload', sentAt: Date.now(), ms: 0, status: put.status });
    const queued = await api.send('import', 'POST', `/portfolios/${b.importPortfolioId}/imports`,
      { storageKey: target.body.data.storageKey, columnMapping: identityMapping(header), conflictResolution: 'add' }, { 'idempotency-key': `b-${label}-import` });
    if (queued.status !== 202) return;
    run.importId = queued.body.data.id as string;
    await onImportQueued(run.importId);
  };

  await Promise.all([
    paced(1000 / profile.readsPerSecond, readCount, until, never, (i) => api.send('read', 'GET', reads[i % reads.length])),
    paced(profile.mixMs / profile.payments, profile.payments, until, never, async (i) => {
      const answer = await api.send('payment', 'POST', '/payments', paymentOf(b, `b-${label}-p${i}`, i));
      if (answer.status === 201) run.paymentIds.push(answer.body.data.id as string);
    }),
    paced(profile.mixMs / profile.batches, profile.batches, until, never, (i) =>
      api.send('batch', 'POST', `/portfolios/${b.portfolioId}/debtors`, { debtors: Array.from({ length: 10 }, (_, k) => debtorOf(`b-${label}-b${i}-${k}`)) },
        { 'idempotency-key': `b-${label}-b${i}` })),
    importer(),
  ]);
  run.endedAt = Date.now();
  return run;
}
