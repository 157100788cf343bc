import { Pool } from 'undici';

/** A debtor batch body: `debtors` debtors with `debtsEach` debts and `phonesEach` phones each (the benches' shape). */
export function batchBody(prefix: string, debtors: number, debtsEach = 2, phonesEach = 2): string {
  return JSON.stringify({
    debtors: Array.from({ length: debtors }, (_, i) => ({
      externalId: `${prefix}-${i}`,
      identityFirstName: 'Ana',
      identityLastName: 'García',
      identityDocumentType: 'national_id',
      identityDocumentNumber: `DOC${prefix}${i}`,
      contactInfoAddressCity: 'Madrid',
      contactInfoAddressCountry: 'ES',
      contactInfoPhoneNumbers: Array.from({ length: phonesEach }, (_, p) => ({ phone: `+34 6${String(i).padStart(4, '0')} ${p}1 23`, primary: p === 0 })),
      debts: Array.from({ length: debtsEach }, (_, d) => ({
        externalId: `${prefix}-${i}-${d}`,
        totalAmount: 1000 + d,
        paidAmount: d % 2 ? 100.25 : 0,
        currency: 'EUR',
        dueDate: '2026-06-30',
        description: 'consumer loan',
      })),
    })),
  });
}

interface BatchAnswer {
  data?: { results: { id: string | null; status: string }[]; summary: { created: number; updated: number; rejected: number } };
}

/**
 * `POST /public/v1/portfolios/{id}/debtors` through the gateway: the client's wall time, and the
 * debtors' ids. Anything but 200 with no item rejected is an error.
 */
export async function postBatch(pool: Pool, key: string, portfolioId: string, body: string): Promise<{ ms: number; ids: string[]; created: number; updated: number }> {
  const started = performance.now();
  const res = await pool.request({
    method: 'POST',
    path: `/public/v1/portfolios/${portfolioId}/debtors`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  const text = await res.body.text();
  const ms = performance.now() - started;
  const json = JSON.parse(text) as BatchAnswer;
  if (res.statusCode !== 200 || !json.data || json.data.summary.rejected) throw new Error(`debtor batch: ${res.statusCode} ${text.slice(0, 400)}`);
  return { ms, ids: json.data.results.map((r) => r.id!), created: json.data.summary.created, updated: json.data.summary.updated };
}
