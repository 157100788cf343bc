export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;

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

/** Cursors are opaque to clients: base64url of the last id of the page. */
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

/** Builds a page from `limit + 1` rows fetched in id order. */
export function toPage<T extends { id: string }, R>(rows: T[], limit: number, map: (row: T) => R): ListBody<R> {
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  return {
    data: page.map(map),
    pagination: {
      hasMore,
      limit,
      nextCursor: hasMore ? encodeCursor(page[page.length - 1].id) : null,
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
 * shape as `toPage`, built by concatenation, so no row is ever parsed or re-serialised.
 */
export function jsonListBody(rows: JsonRow[], limit: number): string {
  const hasMore = rows.length > limit;
  const count = hasMore ? limit : rows.length;
  let data = '';
  for (let i = 0; i < count; i++) data += (i ? ',' : '') + rows[i].json;
  return `{"data":[${data}${listTail(hasMore, limit, hasMore ? rows[count - 1].id : null)}`;
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
