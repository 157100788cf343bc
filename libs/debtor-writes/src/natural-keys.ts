/**
 * The unique indexes of the debtor tables that hold a natural key — a value two writers can both
 * claim — rather than an id this code generated. A unique violation on one of them means another
 * transaction got there first: the write may be retried and will then see that row
 * (isWriteConflict, libs/database). Since add may duplicate live external ids (docs/adr/0041) the
 * only one left is a debtor's number.
 */
export const DEBTOR_NATURAL_KEYS: ReadonlySet<string> = new Set(['debtor_phones_debtor_id_phone_e164_key']);
