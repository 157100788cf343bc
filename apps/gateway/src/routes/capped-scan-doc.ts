import { MAX_ROWS_EXAMINED_PER_PAGE } from '@dc/contracts';

/** The cap as prose: 2,000. */
export const MAX_ROWS_EXAMINED_TEXT = String(MAX_ROWS_EXAMINED_PER_PAGE).replace(/\B(?=(\d{3})+$)/g, ',');

/**
 * A list route's sentence on its capped scans (docs/adr/0042): with `filters`, which its index does
 * not serve in page order, a page examines at most MAX_ROWS_EXAMINED_PER_PAGE `rows`, shared by its
 * scans (one per portfolio, and per status value when `statuses`).
 */
export function cappedScanDoc(filters: string, rows: string, statuses = false): string {
  return (
    `With ${filters}, a page examines at most ${MAX_ROWS_EXAMINED_TEXT} ${rows} (shared by the portfolios${statuses ? ' and status values' : ''} it reads): ` +
    'when that comes first it ends early, with fewer than limit items or none, hasMore true and a nextCursor that resumes after the last one examined. ' +
    'Follow nextCursor until hasMore is false; never stop on a short or empty page.'
  );
}
