import { Injectable } from '@nestjs/common';
import { AuthContext, DebtorStatus, DebtorView, ErasureScheme, JsonBytesRow } from '@dc/contracts';
import { Database, ReadRouter, isoTimestampSql, Prisma, Tx } from '@dc/database';
import { reachableKeysetPageSql } from '../reach/reach.repository';

export interface DebtorListFilter {
  portfolioId?: string;
  status?: DebtorStatus[];
}

/** The debtor being deleted or erased, locked for the rest of the transaction. */
export interface LockedDebtor {
  id: string;
  portfolioId: string;
  externalId: string | null;
  erasedAt: Date | null;
}

type Field = readonly [column: string, field: keyof DebtorView];

/** debtors columns aliased to their DebtorView fields, in the view's order; contacts go between the two. */
const BEFORE_CONTACTS: readonly Field[] = [
  ['id', 'id'], ['portfolio_id', 'portfolioId'], ['external_id', 'externalId'], ['status', 'status'], ['priority', 'priority'],
  ['identity_first_name', 'identityFirstName'], ['identity_last_name', 'identityLastName'],
  ['identity_document_type', 'identityDocumentType'], ['identity_document_number', 'identityDocumentNumber'],
  ['identity_entity_type', 'identityEntityType'], ['contact_info_contact_name', 'contactInfoContactName'],
  ['contact_info_address_street', 'contactInfoAddressStreet'], ['contact_info_address_city', 'contactInfoAddressCity'],
  ['contact_info_address_state', 'contactInfoAddressState'], ['contact_info_address_postal_code', 'contactInfoAddressPostalCode'],
  ['contact_info_address_country', 'contactInfoAddressCountry'],
];
const AFTER_CONTACTS: readonly Field[] = [
  ['compliance_opt_out', 'complianceOptOut'], ['compliance_consent_to_call', 'complianceConsentToCall'],
  ['compliance_consent_to_whatsapp', 'complianceConsentToWhatsapp'], ['compliance_consent_to_email', 'complianceConsentToEmail'],
  ['compliance_consent_to_sms', 'complianceConsentToSms'], ['created_at', 'createdAt'], ['updated_at', 'updatedAt'],
];

/** Inside the keyset page: the debtor's own columns, named as the view's fields. */
const PAGE_COLUMNS = Prisma.raw([...BEFORE_CONTACTS, ...AFTER_CONTACTS].map(([column, field]) => `d.${column} AS "${field}"`).join(', '));
/** Outside it: the same fields, timestamps as the API's text (built once, not per request). */
const fromPage = (fields: readonly Field[]) =>
  Prisma.raw(fields.map(([column, field]) => (column.endsWith('_at') ? `${isoTimestampSql(`page."${field}"`)} AS "${field}"` : `page."${field}"`)).join(', '));
const PAGE_BEFORE_CONTACTS = fromPage(BEFORE_CONTACTS);
const PAGE_AFTER_CONTACTS = fromPage(AFTER_CONTACTS);

/**
 * Phones and emails in position order, each serialised by Postgres in the view's shape
 * (DebtorPhoneView, DebtorEmailView), for the page's rows only. `row_to_json` writes compact JSON
 * (json_build_object would put spaces around every colon).
 */
const CONTACTS = Prisma.sql`
  COALESCE((SELECT ('[' || string_agg(x.json, ',' ORDER BY x.position, x.id) || ']')::json FROM (
      SELECT ph.position, ph.id, (SELECT row_to_json(r)::text FROM (SELECT ph.phone, ph."primary", ph.type, ph.owner, ph.owner_source AS "ownerSource",
        (SELECT row_to_json(v) FROM (SELECT ph.verification_status AS status, ph.verified) v) AS verification) r) AS json
      FROM debtor_phones ph WHERE ph.debtor_id = page.id) x), '[]') AS "contactInfoPhoneNumbers",
  COALESCE((SELECT ('[' || string_agg(x.json, ',' ORDER BY x.position, x.id) || ']')::json FROM (
      SELECT em.position, em.id, (SELECT row_to_json(r)::text FROM (SELECT em.address, em."primary", em.type,
        (SELECT row_to_json(v) FROM (SELECT em.verification_status AS status, em.verified) v) AS verification) r) AS json
      FROM debtor_emails em WHERE em.debtor_id = page.id) x), '[]') AS "contactInfoEmails"`;

/**
 * Reachable debtors in one statement: reach, liveness, filters and keyset (reachableKeysetPageSql),
 * then each row serialised by Postgres as its DebtorView JSON (contacts aggregated for the page's
 * rows only): rows are `{id, json}` in id order, joined into the body unparsed (docs/adr/0024).
 */
export function reachableDebtorsSql(auth: AuthContext, filter: DebtorListFilter & { id?: string }, afterId: string | null, take: number): Prisma.Sql {
  // The page's key (docs/adr/0023): the id (primary key), else the statuses, one scan each
  // (debtors_live_status_portfolio_id_id_idx); none: debtors_live_portfolio_id_id_idx.
  const key = filter.id !== undefined ? { column: 'id', values: [filter.id] } : filter.status?.length ? { column: 'status', values: filter.status } : undefined;
  const live = Prisma.sql`d.deleted_at IS NULL AND d.erased_at IS NULL`;
  const page = reachableKeysetPageSql(auth, { columns: PAGE_COLUMNS, from: Prisma.sql`debtors d`, alias: 'd', live, key, conditions: [], portfolioId: filter.portfolioId, afterId, take });
  return Prisma.sql`
    SELECT view.id, row_to_json(view)::text AS json FROM (
      SELECT ${PAGE_BEFORE_CONTACTS}, ${CONTACTS}, ${PAGE_AFTER_CONTACTS}
      FROM (${page}) page) view
    ORDER BY view.id`;
}

/** Keys of event payloads (the call list item, the payment) that hold the subject's personal data. */
const EVENT_PERSONAL_KEYS = ['fromNumber', 'toNumber', 'analysis', 'reference'];

/** The only SQL of debtors (reads, deletion, erasure); the sequences are DebtorsService's. */
@Injectable()
export class DebtorsRepository {
  constructor(
    private readonly db: Database,
    /** Public list and by-id reads: a replica, or the primary (docs/adr/0050). */
    private readonly reads: ReadRouter,
  ) {}

  /** Legacy (unsalted SHA-256) erasure tombstones, at most `take` of them. */
  legacyTombstones(take: number): Promise<{ portfolioId: string; hash: string }[]> {
    return this.db.client.$queryRaw<{ portfolioId: string; hash: string }[]>`
      SELECT portfolio_id AS "portfolioId", external_id_hash AS hash FROM debtor_erasures WHERE scheme = 'sha256' LIMIT ${take}`;
  }

  /** Replaces each legacy tombstone still there by its rekeyed value; returns how many. */
  rekeyTombstones(rows: { portfolioId: string; hash: string; rekeyed: string }[]): Promise<number> {
    return this.db.client.$executeRaw`
      UPDATE debtor_erasures AS e SET external_id_hash = r.rekeyed, scheme = 'hmac-sha256-of-sha256'
      FROM unnest(${rows.map((r) => r.portfolioId)}::text[], ${rows.map((r) => r.hash)}::text[], ${rows.map((r) => r.rekeyed)}::text[]) AS r(pf, hash, rekeyed)
      WHERE e.portfolio_id = r.pf AND e.external_id_hash = r.hash AND e.scheme = 'sha256'`;
  }

  /** One keyset page (limit + 1 rows, id order) of the debtors the key can reach, each as its view's JSON. */
  listReachable(auth: AuthContext, filter: DebtorListFilter, afterId: string | null, take: number): Promise<JsonBytesRow[]> {
    return this.reads.preparedBytes<JsonBytesRow>(auth.apiKeyId, reachableDebtorsSql(auth, filter, afterId, take));
  }

  async findReachable(auth: AuthContext, id: string): Promise<JsonBytesRow | null> {
    const [row] = await this.reads.preparedBytes<JsonBytesRow>(auth.apiKeyId, reachableDebtorsSql(auth, { id }, null, 1));
    return row ?? null;
  }

  /** Locks the debtor (deleted and erased ones too) so its deletion or erasure runs once at a time. */
  async lock(tx: Tx, id: string): Promise<LockedDebtor | null> {
    const [debtor] = await tx.$queryRaw<{ id: string; portfolio_id: string; external_id: string | null; erased_at: Date | null }[]>`
      SELECT id, portfolio_id, external_id, erased_at FROM debtors WHERE id = ${id} FOR UPDATE`;
    return debtor ? { id: debtor.id, portfolioId: debtor.portfolio_id, externalId: debtor.external_id, erasedAt: debtor.erased_at } : null;
  }

  /** Sets deleted_at unless already set (the first deletion time is kept). */
  async markDeleted(tx: Tx, id: string): Promise<void> {
    await tx.$executeRaw`UPDATE debtors SET deleted_at = now(), updated_at = now() WHERE id = ${id} AND deleted_at IS NULL`;
  }

  /** Live debts soft-deleted (frees their externalIds), pending messages cancelled. */
  async retireDependants(tx: Tx, debtorId: string): Promise<void> {
    await tx.$executeRaw`UPDATE debts SET deleted_at = now(), updated_at = now() WHERE debtor_id = ${debtorId} AND deleted_at IS NULL`;
    await tx.$executeRaw`
      UPDATE debtor_pending_messages SET status = 'cancelled', cancelled_at = now(), cancel_reason = 'debtor_deleted'
      WHERE debtor_id = ${debtorId} AND status = 'pending'`;
  }

  /** The tombstone of an erased externalId, an HMAC (the batch write and the importer answer `erased_subject` for it). */
  async recordErasure(tx: Tx, portfolioId: string, tombstone: string): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO debtor_erasures (portfolio_id, external_id_hash, scheme)
      VALUES (${portfolioId}, ${tombstone}, ${ErasureScheme.Hmac})
      ON CONFLICT DO NOTHING`;
  }

  async deleteContacts(tx: Tx, debtorId: string): Promise<void> {
    await tx.$executeRaw`DELETE FROM debtor_phones WHERE debtor_id = ${debtorId}`;
    await tx.$executeRaw`DELETE FROM debtor_emails WHERE debtor_id = ${debtorId}`;
  }

  /** Note bodies and timeline data emptied, debt descriptions nulled; the rows stay as records. */
  async emptyFreeText(tx: Tx, debtorId: string): Promise<void> {
    await tx.$executeRaw`UPDATE debtor_notes SET body = '' WHERE debtor_id = ${debtorId}`;
    await tx.$executeRaw`UPDATE debtor_timeline_events SET data = '{}'::jsonb WHERE debtor_id = ${debtorId}`;
    await tx.$executeRaw`UPDATE debts SET description = NULL, updated_at = now() WHERE debtor_id = ${debtorId}`;
  }

  /**
   * The subject's personal data in its calls, payments and events, in three statements whatever
   * their number (docs/adr/0025): call numbers and analysis, payment references, and the same keys
   * in the JSON of every outbox event about the debtor — relayed or not, so pending deliveries
   * (which read the payload at each attempt) send the scrubbed copy. The records stay as history.
   */
  async scrubActivity(tx: Tx, debtorId: string): Promise<void> {
    await tx.$executeRaw`
      UPDATE calls SET from_number = NULL, to_number = NULL, analysis = NULL, updated_at = now()
      WHERE debtor_id = ${debtorId} AND (from_number IS NOT NULL OR to_number IS NOT NULL OR analysis IS NOT NULL)`;
    await tx.$executeRaw`
      UPDATE payments SET reference = NULL, updated_at = now()
      WHERE debtor_id = ${debtorId} AND reference IS NOT NULL`;
    // The payload is json (the exact text sent): rebuilt key by key in its order, personal keys
    // set to null, every other value kept as written. Found through outbox_events_debtor_id_idx.
    await tx.$executeRaw`
      UPDATE outbox_events e SET payload = (
        SELECT ('{' || string_agg(to_json(j.key)::text || ':' || CASE WHEN j.key = ANY(${EVENT_PERSONAL_KEYS}::text[]) THEN 'null' ELSE j.value::text END, ',' ORDER BY j.n) || '}')::json
        FROM json_each(e.payload) WITH ORDINALITY AS j(key, value, n))
      WHERE (e.payload ->> 'debtorId') = ${debtorId}
        AND EXISTS (SELECT 1 FROM json_each_text(e.payload) k WHERE k.key = ANY(${EVENT_PERSONAL_KEYS}::text[]) AND k.value IS NOT NULL)`;
  }

  /** Every personal column and the externalId nulled; erased (and deleted, unless it already was). Returns erasedAt. */
  async wipePersonalData(tx: Tx, id: string): Promise<Date> {
    const [erased] = await tx.$queryRaw<{ erased_at: Date }[]>`
      UPDATE debtors SET
        external_id = NULL, identity_first_name = NULL, identity_last_name = NULL,
        identity_document_type = NULL, identity_document_number = NULL, identity_entity_type = NULL,
        contact_info_contact_name = NULL, contact_info_address_street = NULL, contact_info_address_city = NULL,
        contact_info_address_state = NULL, contact_info_address_postal_code = NULL, contact_info_address_country = NULL,
        deleted_at = COALESCE(deleted_at, now()), erased_at = now(), updated_at = now()
      WHERE id = ${id}
      RETURNING erased_at`;
    return erased.erased_at;
  }
}
