import type { Statement } from './statement';

/**
 * Writers of one portfolio's debtors and debts serialise on transaction-scoped advisory locks whose
 * keys are built here: `portfolio:<id>`, `debtor:<portfolio>:<externalId>`, `debt:<portfolio>:<externalId>`,
 * hashed with `hashtextextended(key, 0)`. A batch and an import meet on the portfolio's key.
 */
export const portfolioLockKey = (portfolioId: string): string => `portfolio:${portfolioId}`;
export const debtorLockKey = (portfolioId: string, externalId: string): string => `debtor:${portfolioId}:${externalId}`;
export const debtLockKey = (portfolioId: string, externalId: string): string => `debt:${portfolioId}:${externalId}`;

/**
 * Batches with more keys than this lock their whole portfolio instead of each key: every lock takes
 * a slot of Postgres's shared lock table, sized max_locks_per_transaction (64) × connections, and
 * one lock per debt (10,000 for a batch of 500 × 20) overflowed it with two such batches at once.
 */
export const MAX_KEY_LOCKS = 64;

export type LockMode = 'shared' | 'exclusive';

/** The portfolio's lock; `key` is a placeholder or a quoted literal of portfolioLockKey(). */
export function portfolioLockSql(key: string, mode: LockMode): string {
  return `SELECT pg_advisory_xact_lock${mode === 'shared' ? '_shared' : ''}(hashtextextended(${key}, 0))`;
}

/**
 * The debtor batch's locks (docs/adr/0012), for the debtor and debt external ids it reads:
 * - at most MAX_KEY_LOCKS keys: its portfolio's lock in shared mode, then one lock per key in sorted
 *   order (no deadlock between batches) — small batches of one portfolio run in parallel unless
 *   they share a key;
 * - more: its portfolio's lock in exclusive mode, one lock in all — it waits for the batches of its
 *   portfolio in progress and they wait for it.
 * An import holds the portfolio's lock in exclusive mode (importLockSql): it and the batches of its
 * portfolio never interleave.
 */
export function batchLockStatements(portfolioId: string, debtorExternalIds: readonly string[], debtExternalIds: readonly string[]): Statement[] {
  const keys = [...new Set([...debtorExternalIds.map((e) => debtorLockKey(portfolioId, e)), ...debtExternalIds.map((e) => debtLockKey(portfolioId, e))])];
  if (!keys.length) return [];
  const portfolio = portfolioLockKey(portfolioId);
  if (keys.length > MAX_KEY_LOCKS) return [{ text: portfolioLockSql('$1', 'exclusive'), values: [portfolio] }];
  return [
    { text: portfolioLockSql('$1', 'shared'), values: [portfolio] },
    {
      text: `SELECT pg_advisory_xact_lock(k)
        FROM (SELECT DISTINCT hashtextextended(x, 0) AS k FROM unnest($1::text[]) AS x ORDER BY 1) AS s`,
      values: [keys],
    },
  ];
}

/** An import chunk's lock: its portfolio's, exclusive; `literal` is portfolioLockKey() quoted (simple protocol). */
export function importLockSql(literal: string): string {
  return portfolioLockSql(literal, 'exclusive');
}
