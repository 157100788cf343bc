export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;

/**
 * The most rows a list page may examine when a filter is not its index's key (a second filter, or
 * `from`/`to`), shared by the page's scans (docs/adr/0042). A page that reaches it first ends short
 * — even empty — with `hasMore: true` and a cursor after the last row examined. 2,000 rows cost
 * ~2,000 buffers, 2-4 ms warm, where every row is on its own heap page; an unbounded scan costs the
 * portfolio.
 */
export const MAX_ROWS_EXAMINED_PER_PAGE = 2000;

export interface Pagination {
  hasMore: boolean;
  limit: number;
  nextCursor: string | null;
}

export interface ListBody<T> {
  data: T[];
  pagination: Pagination;
}

export interface ItemBody<T> {
  data: T;
}

/**
 * The spec's limit rule: absent → 50; zero or negative → 50; above 100 → 100; anything that is
 * not an integer → NaN (rejected by validation with 400 validation_error).
 */
export function parseLimit(raw: unknown): number {
  if (raw === undefined || raw === null || raw === '') return DEFAULT_PAGE_LIMIT;
  const text = String(raw).trim();
  if (!/^[+-]?\d+$/.test(text)) return Number.NaN;
  const n = Number(text);
  if (n <= 0) return DEFAULT_PAGE_LIMIT;
  return Math.min(n, MAX_PAGE_LIMIT);
}

/**
 * Cursors are opaque to clients: base64url of the id the next page starts after — the page's last
 * row, or the last row a capped scan examined (docs/adr/0042).
 */
export function encodeCursor(lastId: string): string {
  return Buffer.from(`v1:${lastId}`, 'utf8').toString('base64url');
}

/** Returns the id after which the next page starts, or null when the cursor is not one of ours. */
export function decodeCursor(cursor: string): string | null {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith('v1:')) return null;
  const id = text.slice(3);
  return /^[a-z]{2,5}_[0-9A-HJKMNP-TV-Z]{26}$/.test(id) ? id : null;
}

/**
 * Builds a page from `limit + 1` rows fetched in id order. `resumeAfter`: where a page that examined
 * as many rows as it may (MAX_ROWS_EXAMINED_PER_PAGE) stopped, with fewer rows: it has more, and
 * the next page starts after that id.
 */
export function toPage<T extends { id: string }, R>(rows: T[], limit: number, map: (row: T) => R, resumeAfter: string | null = null): ListBody<R> {
  const full = rows.length > limit;
  const page = full ? rows.slice(0, limit) : rows;
  const after = full ? page[page.length - 1].id : resumeAfter;
  return {
    data: page.map(map),
    pagination: {
      hasMore: after !== null,
      limit,
      nextCursor: after === null ? null : encodeCursor(after),
    },
  };
}

/** A row whose view Postgres has already serialised: its id (for the cursor) and its JSON text. */
export interface JsonRow {
  id: string;
  json: string;
}

/**
 * The JSON text of a list body from `limit + 1` rows Postgres serialised (docs/adr/0024): the same
 * shape as `toPage` (`resumeAfter` as there), built by concatenation, so no row is ever parsed or
 * re-serialised.
 */
export function jsonListBody(rows: JsonRow[], limit: number, resumeAfter: string | null = null): string {
  const full = rows.length > limit;
  const count = full ? limit : rows.length;
  let data = '';
  for (let i = 0; i < count; i++) data += (i ? ',' : '') + rows[i].json;
  const after = full ? rows[count - 1].id : resumeAfter;
  return `{"data":[${data}${listTail(after !== null, limit, after)}`;
}

/** What follows a list body's last row: the end of `data` and the pagination object. */
function listTail(hasMore: boolean, limit: number, lastId: string | null): string {
  const nextCursor = lastId === null ? 'null' : `"${encodeCursor(lastId)}"`;
  return `],"pagination":{"hasMore":${hasMore},"limit":${limit},"nextCursor":${nextCursor}}}`;
}

/** The JSON text of an item body from one serialised row. */
export function jsonItemBody(row: JsonRow): string {
  return `{"data":${row.json}}`;
}

/** A serialised row as the bytes Postgres sent (Database.preparedBytes): its id and its JSON, UTF-8. */
export interface JsonBytesRow {
  id: Buffer;
  json: Buffer;
}

const LIST_HEAD = Buffer.from('{"data":[');
const ITEM_HEAD = Buffer.from('{"data":');
const ITEM_TAIL = Buffer.from('}');
const COMMA = Buffer.from(',');

/** `jsonListBody` from rows read as bytes: the same bytes, built without decoding or encoding a row. */
export function jsonListBytes(rows: JsonBytesRow[], limit: number): Buffer {
  const hasMore = rows.length > limit;
  const count = hasMore ? limit : rows.length;
  const parts: Buffer[] = [LIST_HEAD];
  for (let i = 0; i < count; i++) {
    if (i) parts.push(COMMA);
    parts.push(rows[i].json);
  }
  parts.push(Buffer.from(listTail(hasMore, limit, hasMore ? rows[count - 1].id.toString('latin1') : null)));
  return Buffer.concat(parts);
}

/** `jsonItemBody` from a row read as bytes. */
export function jsonItemBytes(row: JsonBytesRow): Buffer {
  return Buffer.concat([ITEM_HEAD, row.json, ITEM_TAIL]);
}
