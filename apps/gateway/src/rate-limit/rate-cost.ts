import type { FastifyRequest } from 'fastify';

/** A route's cost in rate-limit units, computed from the parsed request (default 1). */
export type RateCostFn = (request: FastifyRequest) => number;

/**
 * The debtor batch costs 1 unit per 50 debtors, rounded up, minimum 1:
 * 20 → 1, 50 → 1, 51 → 2, 500 → 10 (spec: Limits; rounding documented in docs/adr/0008).
 */
export function batchCost(items: number): number {
  return Math.max(1, Math.ceil(items / 50));
}

/**
 * Cost of a request whose body carries the batch in `field` (anything else counts as one unit).
 * A batch over `maxItems` is refused with 413 after it is charged, and is charged as a full batch
 * (500 → 10 units): a list of 16,000 empty items must not spend a key's minute and hear 429.
 */
export function batchCostOf(field: string, maxItems: number): RateCostFn {
  return (request) => {
    const items = (request.body as Record<string, unknown> | undefined)?.[field];
    return batchCost(Array.isArray(items) ? Math.min(items.length, maxItems) : 0);
  };
}
