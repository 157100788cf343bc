import { ROW, unchangedGuard, type UnchangedRows } from './statement';

/**
 * Which stored rows a replacement reaches: FROM items joined to the target (after USING), and the
 * condition on the target's alias (`ph` for phones, `e` for emails).
 */
export interface Reach {
  using?: string;
  where: string;
}

const deleting = (table: string, alias: string, reach: Reach) =>
  `DELETE FROM ${table} AS ${alias}${reach.using ? ` USING ${reach.using}` : ''} WHERE ${reach.where}`;

/** Where a number came from (`debtor_phones.origin`): the batch is the API. */
export type PhoneOrigin = 'api' | 'import';

export interface PhoneWrite {
  /** What the debtor_phones row says of a new number's provenance. */
  origin: PhoneOrigin;
  /**
   * `upsert`: a row may meet a stored number of its debtor (ON CONFLICT on (debtor_id, phone_e164)).
   * `insert`: every row's debtor is new, so none can, and the insert skips ON CONFLICT's
   * speculative insertion.
   */
  known: 'upsert' | 'insert';
  unchanged: UnchangedRows;
}

/**
 * A sent list is the full authority on its debtor's numbers; an absent (or, in the batch, empty)
 * list leaves them alone. First the numbers the list leaves out go: `reach.where` restricts `ph` to
 * the debtors whose list was sent, `unlisted` is true for a number its debtor's list lacks.
 */
export function deleteUnlistedPhonesSql(reach: Reach & { unlisted: string }): string {
  return deleting('debtor_phones', 'ph', { using: reach.using, where: `${reach.where} AND ${reach.unlisted}` });
}

/**
 * Then the listed numbers are written. `rows` (named `u`): `id`, `debtor_id`, `phone` (as sent),
 * `e164` (its identity), `pos`, `pr` (primary), `type`, `owner` (null: not sent).
 * A new number takes the row's values; its owner is `unknown` unless sent (then `owner_source` is
 * `client`). A known number keeps what was learned about it — type, origin, verification, and its
 * owner unless one was sent — and takes the row's text, position and primary.
 */
export function writePhonesSql(rows: string, how: PhoneWrite): string {
  const insert = `INSERT INTO debtor_phones AS ph (id, debtor_id, phone, phone_e164, position, "primary", type, origin, owner, owner_source)
  SELECT ${ROW}.id, ${ROW}.debtor_id, ${ROW}.phone, ${ROW}.e164, ${ROW}.pos, ${ROW}.pr, ${ROW}.type, '${how.origin}',
    COALESCE(${ROW}.owner, 'unknown'), CASE WHEN ${ROW}.owner IS NULL THEN 'default' ELSE 'client' END
  FROM ${rows}`;
  if (how.known === 'insert') return insert;
  const known: [string, string][] = [
    ['phone', 'EXCLUDED.phone'],
    ['position', 'EXCLUDED.position'],
    ['"primary"', 'EXCLUDED."primary"'],
    ['owner', `CASE WHEN EXCLUDED.owner_source = 'client' THEN EXCLUDED.owner ELSE ph.owner END`],
    ['owner_source', `CASE WHEN EXCLUDED.owner_source = 'client' THEN 'client' ELSE ph.owner_source END`],
  ];
  return `${insert}
  ON CONFLICT (debtor_id, phone_e164) DO UPDATE SET
    ${known.map(([column, value]) => `${column} = ${value}`).join(', ')}, updated_at = now()${how.unchanged === 'skip' ? `
  WHERE ${unchangedGuard('ph', known)}` : ''}`;
}

/**
 * A sent list of emails replaces the whole list (verification marks go with it); in the batch an
 * empty list deletes them all. First the debtors' stored emails go: `reach.where` restricts `e`.
 */
export function deleteEmailsSql(reach: Reach): string {
  return deleting('debtor_emails', 'e', reach);
}

/** Then the list is inserted. `rows` (named `u`): `id`, `debtor_id`, `address`, `pos`, `pr` (primary), `type`. */
export function insertEmailsSql(rows: string): string {
  return `INSERT INTO debtor_emails (id, debtor_id, address, position, "primary", type)
  SELECT ${ROW}.id, ${ROW}.debtor_id, ${ROW}.address, ${ROW}.pos, ${ROW}.pr, ${ROW}.type
  FROM ${rows}`;
}
