import { Injectable } from '@nestjs/common';
import { AuthContext, DebtorStatus, DebtorView } from '@dc/contracts';
import { Database, isoDates, Prisma, Stored, Tx } from '@dc/database';
import { reachableKeysetPageSql } from '../reach/reach.repository';

export interface DebtorListFilter {
  portfolioId?: string;
  status?: DebtorStatus[];
}

/** A debtor as its SQL returns it: the DebtorView, timestamps still Date. */
type DebtorRow = Stored<DebtorView, 'createdAt' | 'updatedAt'>;

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
const fromPage = (fields: readonly Field[]) => Prisma.raw(fields.map(([, field]) => `page."${field}"`).join(', '));

/**
 * Phones and emails in position order, each built by Postgres in the view's shape
 * (DebtorPhoneView, DebtorEmailView), for the page's rows only.
 */
const CONTACTS = Prisma.sql`
  COALESCE((SELECT json_agg(json_build_object('phone', ph.phone, 'primary', ph."primary", 'type', ph.type, 'owner', ph.owner,
      'ownerSource', ph.owner_source, 'verification', json_build_object('status', ph.verification_status, 'verified', ph.verified))
      ORDER BY ph.position, ph.id) FROM debtor_phones ph WHERE ph.debtor_id = page.id), '[]') AS "contactInfoPhoneNumbers",
  COALESCE((SELECT json_agg(json_build_object('address', em.address, 'primary', em."primary", 'type', em.type,
      'verification', json_build_object('status', em.verification_status, 'verified', em.verified))
      ORDER BY em.position, em.id) FROM debtor_emails em WHERE em.debtor_id = page.id), '[]') AS "contactInfoEmails"`;

/**
 * Reachable debtors in one statement: reach, liveness, filters and keyset (reachableKeysetPageSql),
 * then phones and emails aggregated by Postgres for the page's rows only; each row is a DebtorView
 * but for its timestamps.
 */
export function reachableDebtorsSql(auth: AuthContext, filter: DebtorListFilter & { id?: string }, afterId: string | null, take: number): Prisma.Sql {
  const conditions = [Prisma.sql`d.deleted_at IS NULL`, Prisma.sql`d.erased_at IS NULL`];
  if (filter.status?.length) conditions.push(Prisma.sql`d.status = ANY(${filter.status}::text[])`);
  if (filter.id !== undefined) conditions.push(Prisma.sql`d.id = ${filter.id}`);
  const page = reachableKeysetPageSql(auth, { columns: PAGE_COLUMNS, from: Prisma.sql`debtors d`, alias: 'd', conditions, portfolioId: filter.portfolioId, afterId, take });
  return Prisma.sql`
    SELECT ${fromPage(BEFORE_CONTACTS)}, ${CONTACTS}, ${fromPage(AFTER_CONTACTS)}
    FROM (${page}) page
    ORDER BY page.id`;
}

/** The only SQL of debtors (reads, deletion, erasure); the sequences are DebtorsService's. */
@Injectable()
export class DebtorsRepository {
  constructor(private readonly db: Database) {}

  /** One keyset page (limit + 1 rows, id order) of the debtors the key can reach. */
  async listReachable(auth: AuthContext, filter: DebtorListFilter, afterId: string | null, take: number): Promise<DebtorView[]> {
    return (await this.db.prepared<DebtorRow>(reachableDebtorsSql(auth, filter, afterId, take))).map(isoDates);
  }

  async findReachable(auth: AuthContext, id: string): Promise<DebtorView | null> {
    const [row] = await this.db.prepared<DebtorRow>(reachableDebtorsSql(auth, { id }, null, 1));
    return row ? isoDates(row) : null;
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

  /** The tombstone of an erased externalId (the batch write answers `erased_subject` for it). */
  async recordErasure(tx: Tx, portfolioId: string, externalIdHash: string): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO debtor_erasures (portfolio_id, external_id_hash)
      VALUES (${portfolioId}, ${externalIdHash})
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
