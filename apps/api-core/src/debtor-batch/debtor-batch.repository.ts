import { Injectable } from '@nestjs/common';
import { ErasureTombstones, type IdPrefix } from '@dc/contracts';
import { Database, newId, Prisma, type SqlTransaction } from '@dc/database';
import { batchState, type BatchState, type BatchWrites, type ExistingDebt, type ExistingDebtor } from './batch-plan';

const sql = Prisma.sql;

/** One batch transaction; counts the statements it sends (logged at debug, read by the benchmark). */
export class BatchTx {
  statements = 0;

  constructor(private readonly tx: SqlTransaction) {}

  query<T extends object>(query: Prisma.Sql): Promise<T[]> {
    this.statements += 1;
    return this.tx.query<T & Record<string, unknown>>(query);
  }

  exec(query: Prisma.Sql): Promise<number> {
    this.statements += 1;
    return this.tx.execute(query);
  }
}

/**
 * A batch transaction's planner settings: sequential scans off. Costed with the table's size, a
 * hash join over a full scan looks cheaper than a thousand index probes until the table is large,
 * and its cost then grows with every portfolio's rows (docs/adr/0040).
 */
const KEYED_ONLY = { enable_seqscan: 'off' } as const;

/** Batches with more keys than this lock their whole portfolio instead of each key. */
export const MAX_KEY_LOCKS = 64;

/**
 * The only SQL of the debtor batch. Every statement is set-based (unnest arrays), so a batch
 * sends the same handful of statements whatever its size (docs/adr/0012).
 */
@Injectable()
export class DebtorBatchRepository {
  constructor(
    private readonly db: Database,
    private readonly tombstones: ErasureTombstones,
  ) {}

  transaction<T>(fn: (tx: BatchTx) => Promise<T>): Promise<T> {
    // Through pg: its statements carry arrays of up to thousands of values (docs/adr/0034). Bounded
    // like every transaction by DATABASE_STATEMENT_TIMEOUT_MS (docs/adr/0014). No sequential scans:
    // every statement names its rows by key, so its cost follows the batch, not the tables
    // (docs/adr/0040).
    return this.db.sqlTransaction((tx) => fn(new BatchTx(tx)), { settings: KEYED_ONLY });
  }

  /** The id of a row the batch will insert (the plan names new debtors and debts before writing). */
  newId(prefix: IdPrefix): string {
    return newId(prefix);
  }

  /**
   * Serialises concurrent batches that touch the same debtor or debt externalIds, with
   * transaction-scoped advisory locks and a bounded number of them (every lock takes a slot of
   * Postgres's shared lock table, sized max_locks_per_transaction (64) × connections: one lock per
   * debt, 10,000 for a batch of 500 × 20, overflowed it with two such batches at once).
   * - A batch with at most MAX_KEY_LOCKS keys takes its portfolio's lock in shared mode, then one
   *   lock per key in sorted order (no deadlock): small batches of one portfolio run in parallel
   *   unless they share a key.
   * - A larger batch takes its portfolio's lock in exclusive mode, one lock in all: it waits for
   *   the batches of its portfolio in progress and they wait for it.
   */
  async lockKeys(tx: BatchTx, portfolioId: string, debtorExternalIds: string[], debtExternalIds: string[]): Promise<void> {
    const keys = [...new Set([...debtorExternalIds.map((e) => `debtor:${portfolioId}:${e}`), ...debtExternalIds.map((e) => `debt:${portfolioId}:${e}`)])];
    if (!keys.length) return;
    const portfolioKey = `portfolio:${portfolioId}`;
    if (keys.length > MAX_KEY_LOCKS) {
      await tx.exec(sql`SELECT pg_advisory_xact_lock(hashtextextended(${portfolioKey}, 0))`);
      return;
    }
    await tx.exec(sql`SELECT pg_advisory_xact_lock_shared(hashtextextended(${portfolioKey}, 0))`);
    await tx.exec(sql`
      SELECT pg_advisory_xact_lock(k)
      FROM (SELECT DISTINCT hashtextextended(x, 0) AS k FROM unnest(${keys}::text[]) AS x ORDER BY 1) AS s`);
  }

  async readState(tx: BatchTx, portfolioId: string, keys: { debtorExternalIds: string[]; debtExternalIds: string[]; erasureHashes: string[] }): Promise<BatchState> {
    const [debtors, erased, debts] = [
      keys.debtorExternalIds.length
        ? await tx.query<ExistingDebtor>(sql`
          SELECT id, external_id AS "externalId", compliance_opt_out AS "complianceOptOut"
          FROM debtors
          WHERE portfolio_id = ${portfolioId} AND external_id = ANY(${keys.debtorExternalIds}::text[]) AND deleted_at IS NULL
          ORDER BY id
          FOR UPDATE`)
        : [],
      keys.erasureHashes.length
        ? await tx.query<{ hash: string }>(sql`
          SELECT external_id_hash AS hash FROM debtor_erasures
          WHERE portfolio_id = ${portfolioId} AND external_id_hash = ANY(${keys.erasureHashes}::text[])`)
        : [],
      keys.debtExternalIds.length
        ? await tx.query<ExistingDebt>(sql`
          SELECT id, external_id AS "externalId", debtor_id AS "debtorId", currency
          FROM debts
          WHERE portfolio_id = ${portfolioId} AND external_id = ANY(${keys.debtExternalIds}::text[]) AND deleted_at IS NULL
          ORDER BY id`)
        : [],
    ];
    const found = new Set(erased.map((e) => e.hash));
    // In id order: with duplicate externalIds (docs/adr/0041) the oldest debtor is matched.
    return batchState(debtors, new Set(keys.debtorExternalIds.filter((id) => this.tombstones.isErased(id, found))), debts);
  }

  async write(tx: BatchTx, portfolioId: string, w: BatchWrites): Promise<void> {
    if (w.newDebtors.length) await this.insertDebtors(tx, portfolioId, w);
    if (w.updatedDebtors.length) await this.updateDebtors(tx, w);
    if (w.phoneSets.length) await this.writePhones(tx, w);
    if (w.emailSets.length) await this.writeEmails(tx, w);
    if (w.newDebts.length) await this.insertDebts(tx, portfolioId, w);
    if (w.updatedDebts.length) await this.updateDebts(tx, w);
    if (w.optOuts.length) await this.recordOptOuts(tx, w.optOuts);
  }

  private insertDebtors(tx: BatchTx, portfolioId: string, w: BatchWrites) {
    const rows = w.newDebtors;
    const col = <T>(f: (r: (typeof rows)[number]) => T | undefined) => rows.map((r) => f(r) ?? null);
    // Absent compliance booleans take the column defaults (kept equal to the migration's DEFAULTs).
    return tx.exec(sql`
      INSERT INTO debtors (id, portfolio_id, external_id, identity_first_name, identity_last_name, identity_document_type,
        identity_document_number, identity_entity_type, contact_info_contact_name, contact_info_address_street,
        contact_info_address_city, contact_info_address_state, contact_info_address_postal_code, contact_info_address_country,
        compliance_opt_out, compliance_consent_to_call, compliance_consent_to_whatsapp, compliance_consent_to_email, compliance_consent_to_sms)
      SELECT u.id, ${portfolioId}, u.ext, u.fn, u.ln, u.dt, u.dn, u.et, u.cn, u.st, u.ci, u.sa, u.pc, u.co,
        COALESCE(u.oo, false), COALESCE(u.cc, true), COALESCE(u.cw, false), COALESCE(u.ce, true), COALESCE(u.cs, true)
      FROM unnest(
        ${col((r) => r.id)}::text[], ${col((r) => r.dto.externalId)}::text[], ${col((r) => r.dto.identityFirstName)}::text[],
        ${col((r) => r.dto.identityLastName)}::text[], ${col((r) => r.dto.identityDocumentType)}::text[],
        ${col((r) => r.dto.identityDocumentNumber)}::text[], ${col((r) => r.dto.identityEntityType)}::text[],
        ${col((r) => r.dto.contactInfoContactName)}::text[], ${col((r) => r.dto.contactInfoAddressStreet)}::text[],
        ${col((r) => r.dto.contactInfoAddressCity)}::text[], ${col((r) => r.dto.contactInfoAddressState)}::text[],
        ${col((r) => r.dto.contactInfoAddressPostalCode)}::text[], ${col((r) => r.dto.contactInfoAddressCountry)}::text[],
        ${col((r) => r.dto.complianceOptOut)}::boolean[], ${col((r) => r.dto.complianceConsentToCall)}::boolean[],
        ${col((r) => r.dto.complianceConsentToWhatsapp)}::boolean[], ${col((r) => r.dto.complianceConsentToEmail)}::boolean[],
        ${col((r) => r.dto.complianceConsentToSms)}::boolean[]
      ) AS u(id, ext, fn, ln, dt, dn, et, cn, st, ci, sa, pc, co, oo, cc, cw, ce, cs)`);
  }

  private updateDebtors(tx: BatchTx, w: BatchWrites) {
    const rows = w.updatedDebtors;
    const col = <T>(f: (r: (typeof rows)[number]) => T | undefined) => rows.map((r) => f(r) ?? null);
    // Required identity fields always overwrite; optional fields overwrite only when sent; status and priority never.
    // `d.id = ANY(ids)` is the index path to the rows (a join on unnest alone offers only a full scan).
    return tx.exec(sql`
      UPDATE debtors AS d SET
        identity_first_name = u.fn, identity_document_type = u.dt, identity_document_number = u.dn,
        identity_last_name = COALESCE(u.ln, d.identity_last_name),
        identity_entity_type = COALESCE(u.et, d.identity_entity_type),
        contact_info_contact_name = COALESCE(u.cn, d.contact_info_contact_name),
        contact_info_address_street = COALESCE(u.st, d.contact_info_address_street),
        contact_info_address_city = COALESCE(u.ci, d.contact_info_address_city),
        contact_info_address_state = COALESCE(u.sa, d.contact_info_address_state),
        contact_info_address_postal_code = COALESCE(u.pc, d.contact_info_address_postal_code),
        contact_info_address_country = COALESCE(u.co, d.contact_info_address_country),
        compliance_opt_out = COALESCE(u.oo, d.compliance_opt_out),
        compliance_consent_to_call = COALESCE(u.cc, d.compliance_consent_to_call),
        compliance_consent_to_whatsapp = COALESCE(u.cw, d.compliance_consent_to_whatsapp),
        compliance_consent_to_email = COALESCE(u.ce, d.compliance_consent_to_email),
        compliance_consent_to_sms = COALESCE(u.cs, d.compliance_consent_to_sms),
        updated_at = now()
      FROM unnest(
        ${col((r) => r.id)}::text[], ${col((r) => r.dto.identityFirstName)}::text[],
        ${col((r) => r.dto.identityLastName)}::text[], ${col((r) => r.dto.identityDocumentType)}::text[],
        ${col((r) => r.dto.identityDocumentNumber)}::text[], ${col((r) => r.dto.identityEntityType)}::text[],
        ${col((r) => r.dto.contactInfoContactName)}::text[], ${col((r) => r.dto.contactInfoAddressStreet)}::text[],
        ${col((r) => r.dto.contactInfoAddressCity)}::text[], ${col((r) => r.dto.contactInfoAddressState)}::text[],
        ${col((r) => r.dto.contactInfoAddressPostalCode)}::text[], ${col((r) => r.dto.contactInfoAddressCountry)}::text[],
        ${col((r) => r.dto.complianceOptOut)}::boolean[], ${col((r) => r.dto.complianceConsentToCall)}::boolean[],
        ${col((r) => r.dto.complianceConsentToWhatsapp)}::boolean[], ${col((r) => r.dto.complianceConsentToEmail)}::boolean[],
        ${col((r) => r.dto.complianceConsentToSms)}::boolean[]
      ) AS u(id, fn, ln, dt, dn, et, cn, st, ci, sa, pc, co, oo, cc, cw, ce, cs)
      WHERE d.id = u.id AND d.id = ANY(${rows.map((r) => r.id)}::text[])`);
  }

  /**
   * Phones, for debtors that sent a non-empty list: numbers not listed are removed; listed numbers
   * are upserted on (debtor_id, phone_e164). A known number keeps type, origin, verification and
   * owner (unless owner was sent: then ownerSource becomes 'client'); it updates phone, primary, position.
   */
  private async writePhones(tx: BatchTx, w: BatchWrites) {
    // Each phone with its place, not a copy of it with its place ({ ...p, position } is slow in V8).
    const flat = w.phoneSets.flatMap((s) => s.phones.map((phone, position) => ({ phone, position, debtorId: s.debtorId })));
    const debtorIds = w.phoneSets.map((s) => s.debtorId);
    await tx.exec(sql`
      DELETE FROM debtor_phones AS p
      WHERE p.debtor_id = ANY(${debtorIds}::text[])
        AND NOT EXISTS (
          SELECT 1 FROM unnest(${flat.map((p) => p.debtorId)}::text[], ${flat.map((p) => p.phone.e164)}::text[]) AS k(d, e)
          WHERE k.d = p.debtor_id AND k.e = p.phone_e164)`);
    await tx.exec(sql`
      INSERT INTO debtor_phones AS p (id, debtor_id, phone, phone_e164, position, "primary", type, owner, owner_source)
      SELECT u.id, u.d, u.phone, u.e164, u.pos, u.pr, u.type, COALESCE(u.owner, 'unknown'),
        CASE WHEN u.owner IS NULL THEN 'default' ELSE 'client' END
      FROM unnest(
        ${flat.map(() => newId('phn'))}::text[], ${flat.map((p) => p.debtorId)}::text[], ${flat.map((p) => p.phone.phone)}::text[],
        ${flat.map((p) => p.phone.e164)}::text[], ${flat.map((p) => p.position)}::int[], ${flat.map((p) => p.phone.primary)}::boolean[],
        ${flat.map((p) => p.phone.type)}::text[], ${flat.map((p) => p.phone.owner)}::text[]
      ) AS u(id, d, phone, e164, pos, pr, type, owner)
      ON CONFLICT (debtor_id, phone_e164) DO UPDATE SET
        phone = EXCLUDED.phone, position = EXCLUDED.position, "primary" = EXCLUDED."primary",
        owner = CASE WHEN EXCLUDED.owner_source = 'client' THEN EXCLUDED.owner ELSE p.owner END,
        owner_source = CASE WHEN EXCLUDED.owner_source = 'client' THEN 'client' ELSE p.owner_source END,
        updated_at = now()`);
  }

  /** Emails: a sent list replaces the whole list (an empty list deletes all). */
  private async writeEmails(tx: BatchTx, w: BatchWrites) {
    await tx.exec(sql`DELETE FROM debtor_emails WHERE debtor_id = ANY(${w.emailSets.map((s) => s.debtorId)}::text[])`);
    const flat = w.emailSets.flatMap((s) => s.emails.map((email, position) => ({ email, position, debtorId: s.debtorId })));
    if (!flat.length) return;
    await tx.exec(sql`
      INSERT INTO debtor_emails (id, debtor_id, address, position, "primary", type)
      SELECT * FROM unnest(
        ${flat.map(() => newId('eml'))}::text[], ${flat.map((e) => e.debtorId)}::text[], ${flat.map((e) => e.email.address)}::text[],
        ${flat.map((e) => e.position)}::int[], ${flat.map((e) => e.email.primary)}::boolean[], ${flat.map((e) => e.email.type)}::text[])`);
  }

  private insertDebts(tx: BatchTx, portfolioId: string, w: BatchWrites) {
    const d = w.newDebts;
    return tx.exec(sql`
      INSERT INTO debts (id, portfolio_id, debtor_id, external_id, total_amount, paid_amount, currency, status,
        due_date, issue_date, description, debt_type)
      SELECT u.id, ${portfolioId}, u.debtor, u.ext, u.total::numeric, u.paid::numeric, u.cur,
        CASE WHEN u.is_paid THEN 'paid' ELSE 'active' END, u.due, u.iss, u.descr, u.dtype
      FROM unnest(
        ${d.map((x) => x.id)}::text[], ${d.map((x) => x.debtorId)}::text[], ${d.map((x) => x.debt.externalId)}::text[],
        ${d.map((x) => x.debt.totalAmount)}::text[], ${d.map((x) => x.debt.paidAmount)}::text[], ${d.map((x) => x.debt.currency)}::text[],
        ${d.map((x) => x.debt.paid)}::boolean[], ${d.map((x) => x.debt.dueDate)}::text[], ${d.map((x) => x.debt.issueDate)}::text[],
        ${d.map((x) => x.debt.description)}::text[], ${d.map((x) => x.debt.debtType)}::text[]
      ) AS u(id, debtor, ext, total, paid, cur, is_paid, due, iss, descr, dtype)`);
  }

  /** Full snapshot: amounts overwritten; status derived unless cancelled; optional texts kept when not sent. */
  private updateDebts(tx: BatchTx, w: BatchWrites) {
    const d = w.updatedDebts;
    // `t.id = ANY(ids)`: the index path to the rows, as in updateDebtors.
    return tx.exec(sql`
      UPDATE debts AS t SET
        total_amount = u.total::numeric, paid_amount = u.paid::numeric,
        status = CASE WHEN t.status = 'cancelled' THEN 'cancelled' WHEN u.is_paid THEN 'paid' ELSE 'active' END,
        due_date = COALESCE(u.due, t.due_date), issue_date = COALESCE(u.iss, t.issue_date),
        description = COALESCE(u.descr, t.description), debt_type = COALESCE(u.dtype, t.debt_type),
        updated_at = now()
      FROM unnest(
        ${d.map((x) => x.id)}::text[], ${d.map((x) => x.debt.totalAmount)}::text[], ${d.map((x) => x.debt.paidAmount)}::text[],
        ${d.map((x) => x.debt.paid)}::boolean[], ${d.map((x) => x.debt.dueDate)}::text[], ${d.map((x) => x.debt.issueDate)}::text[],
        ${d.map((x) => x.debt.description)}::text[], ${d.map((x) => x.debt.debtType)}::text[]
      ) AS u(id, total, paid, is_paid, due, iss, descr, dtype)
      WHERE t.id = u.id AND t.id = ANY(${d.map((x) => x.id)}::text[])`);
  }

  /** An opt-out recorded like a debtor request: a note, a timeline entry, pending messaging cancelled. */
  private async recordOptOuts(tx: BatchTx, debtorIds: string[]) {
    await tx.exec(sql`
      INSERT INTO debtor_notes (id, debtor_id, kind, body)
      SELECT u.id, u.d, 'opt_out', 'Opt-out received through the debtor batch (complianceOptOut true).'
      FROM unnest(${debtorIds.map(() => newId('note'))}::text[], ${debtorIds}::text[]) AS u(id, d)`);
    await tx.exec(sql`
      INSERT INTO debtor_timeline_events (id, debtor_id, kind, data)
      SELECT u.id, u.d, 'opt_out', '{"source":"debtor_batch"}'::jsonb
      FROM unnest(${debtorIds.map(() => newId('tle'))}::text[], ${debtorIds}::text[]) AS u(id, d)`);
    await tx.exec(sql`
      UPDATE debtor_pending_messages SET status = 'cancelled', cancelled_at = now(), cancel_reason = 'opt_out'
      WHERE debtor_id = ANY(${debtorIds}::text[]) AND status = 'pending'`);
  }
}
