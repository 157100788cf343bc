import { Injectable } from '@nestjs/common';
import { AuthContext, DebtorStatus, erasureHash } from '@dc/contracts';
import { Database, Prisma } from '@dc/database';
import { reachableKeysetPageSql } from '../reach/reachable-sql';
import { DebtorRow } from './debtor.mapper';

export interface DebtorListFilter {
  portfolioId?: string;
  status?: DebtorStatus[];
}

const DEBTOR_COLUMNS = Prisma.raw(`d.id, d.portfolio_id AS "portfolioId", d.external_id AS "externalId", d.status, d.priority,
  d.identity_first_name AS "identityFirstName", d.identity_last_name AS "identityLastName",
  d.identity_document_type AS "identityDocumentType", d.identity_document_number AS "identityDocumentNumber",
  d.identity_entity_type AS "identityEntityType", d.contact_info_contact_name AS "contactInfoContactName",
  d.contact_info_address_street AS "contactInfoAddressStreet", d.contact_info_address_city AS "contactInfoAddressCity",
  d.contact_info_address_state AS "contactInfoAddressState", d.contact_info_address_postal_code AS "contactInfoAddressPostalCode",
  d.contact_info_address_country AS "contactInfoAddressCountry", d.compliance_opt_out AS "complianceOptOut",
  d.compliance_consent_to_call AS "complianceConsentToCall", d.compliance_consent_to_whatsapp AS "complianceConsentToWhatsapp",
  d.compliance_consent_to_email AS "complianceConsentToEmail", d.compliance_consent_to_sms AS "complianceConsentToSms",
  d.created_at AS "createdAt", d.updated_at AS "updatedAt"`);

/**
 * Readable debtors in one statement: reach, liveness, filters and keyset (reachableKeysetPageSql),
 * then phones and emails aggregated by Postgres for the page's rows only, columns named as the
 * mapper expects.
 */
export function readableDebtorsSql(auth: AuthContext, filter: DebtorListFilter & { id?: string }, afterId: string | null, take: number): Prisma.Sql {
  const conditions = [Prisma.sql`d.deleted_at IS NULL`, Prisma.sql`d.erased_at IS NULL`];
  if (filter.status?.length) conditions.push(Prisma.sql`d.status = ANY(${filter.status}::text[])`);
  if (filter.id !== undefined) conditions.push(Prisma.sql`d.id = ${filter.id}`);
  const page = reachableKeysetPageSql(auth, { columns: DEBTOR_COLUMNS, from: Prisma.sql`debtors d`, alias: 'd', conditions, portfolioId: filter.portfolioId, afterId, take });
  return Prisma.sql`
    SELECT page.*,
      COALESCE((SELECT json_agg(json_build_object('phone', ph.phone, 'primary', ph."primary", 'type', ph.type, 'owner', ph.owner,
          'ownerSource', ph.owner_source, 'verificationStatus', ph.verification_status, 'verified', ph.verified)
          ORDER BY ph.position, ph.id) FROM debtor_phones ph WHERE ph.debtor_id = page.id), '[]') AS phones,
      COALESCE((SELECT json_agg(json_build_object('address', em.address, 'primary', em."primary", 'type', em.type,
          'verificationStatus', em.verification_status, 'verified', em.verified)
          ORDER BY em.position, em.id) FROM debtor_emails em WHERE em.debtor_id = page.id), '[]') AS emails
    FROM (${page}) page
    ORDER BY page.id`;
}

@Injectable()
export class DebtorsRepository {
  constructor(private readonly db: Database) {}

  listReadable(auth: AuthContext, filter: DebtorListFilter, afterId: string | null, take: number): Promise<DebtorRow[]> {
    return this.db.prepared<DebtorRow>(readableDebtorsSql(auth, filter, afterId, take));
  }

  async findReadable(auth: AuthContext, id: string): Promise<DebtorRow | null> {
    return (await this.db.prepared<DebtorRow>(readableDebtorsSql(auth, { id }, null, 1)))[0] ?? null;
  }

  /**
   * Logical deletion (never revived). The debtor's live debts are soft-deleted with it so their
   * externalIds are free for a new debtor; pending messages are cancelled. False when unknown.
   */
  async softDelete(id: string): Promise<boolean> {
    return this.db.client.$transaction(async (tx) => {
      const [debtor] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM debtors WHERE id = ${id} FOR UPDATE`;
      if (!debtor) return false;
      await tx.$executeRaw`UPDATE debtors SET deleted_at = now(), updated_at = now() WHERE id = ${id} AND deleted_at IS NULL`;
      await this.retireDependants(tx, id);
      return true;
    });
  }

  /**
   * Erasure at the data subject's request, in one transaction: personal data wiped, contacts
   * deleted, notes and timeline bodies emptied, externalId replaced by a tombstone hash in
   * debtor_erasures (the batch write answers `erased_subject`), debtor and debts deleted.
   * Idempotent: a second call returns the first erasedAt. Null when unknown.
   */
  async erase(id: string): Promise<{ id: string; erasedAt: Date } | null> {
    return this.db.client.$transaction(async (tx) => {
      const [debtor] = await tx.$queryRaw<{ id: string; portfolio_id: string; external_id: string | null; erased_at: Date | null }[]>`
        SELECT id, portfolio_id, external_id, erased_at FROM debtors WHERE id = ${id} FOR UPDATE`;
      if (!debtor) return null;
      if (debtor.erased_at) return { id, erasedAt: debtor.erased_at };
      if (debtor.external_id !== null) {
        await tx.$executeRaw`
          INSERT INTO debtor_erasures (portfolio_id, external_id_hash)
          VALUES (${debtor.portfolio_id}, ${erasureHash(debtor.external_id)})
          ON CONFLICT DO NOTHING`;
      }
      await tx.$executeRaw`DELETE FROM debtor_phones WHERE debtor_id = ${id}`;
      await tx.$executeRaw`DELETE FROM debtor_emails WHERE debtor_id = ${id}`;
      await tx.$executeRaw`UPDATE debtor_notes SET body = '' WHERE debtor_id = ${id}`;
      await tx.$executeRaw`UPDATE debtor_timeline_events SET data = '{}'::jsonb WHERE debtor_id = ${id}`;
      await tx.$executeRaw`UPDATE debts SET description = NULL, updated_at = now() WHERE debtor_id = ${id}`;
      await this.retireDependants(tx, id);
      const [erased] = await tx.$queryRaw<{ erased_at: Date }[]>`
        UPDATE debtors SET
          external_id = NULL, identity_first_name = NULL, identity_last_name = NULL,
          identity_document_type = NULL, identity_document_number = NULL, identity_entity_type = NULL,
          contact_info_contact_name = NULL, contact_info_address_street = NULL, contact_info_address_city = NULL,
          contact_info_address_state = NULL, contact_info_address_postal_code = NULL, contact_info_address_country = NULL,
          deleted_at = COALESCE(deleted_at, now()), erased_at = now(), updated_at = now()
        WHERE id = ${id}
        RETURNING erased_at`;
      return { id, erasedAt: erased.erased_at };
    });
  }

  /** Live debts soft-deleted (frees their externalIds), pending messages cancelled. */
  private async retireDependants(tx: Prisma.TransactionClient, debtorId: string): Promise<void> {
    await tx.$executeRaw`UPDATE debts SET deleted_at = now(), updated_at = now() WHERE debtor_id = ${debtorId} AND deleted_at IS NULL`;
    await tx.$executeRaw`
      UPDATE debtor_pending_messages SET status = 'cancelled', cancelled_at = now(), cancel_reason = 'debtor_deleted'
      WHERE debtor_id = ${debtorId} AND status = 'pending'`;
  }
}
