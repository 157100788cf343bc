import { Injectable } from '@nestjs/common';
import { DEFAULT_PAYMENT_METHOD, ErasureTombstones, ImportLimits } from '@dc/contracts';
import { newId } from '@dc/database';
import {
  DEBT_FIELDS, type DebtAlias, DEBTOR_FIELDS, type DebtorAlias, deleteEmailsSql, deleteUnlistedPhonesSql, erasedAmong, importLockSql, insertDebtorsSql,
  insertDebtsSql, insertEmailsSql, KEYED_ONLY_SETTINGS, optOutThroughImport, portfolioLockKey, recordOptOutStatements, setLocalSql,
  tombstonesStatement, updateDebtorsSql, updateDebtsSql, writePhonesSql, type UnchangedRows,
} from '@dc/debtor-writes';
import { rows, Session } from '../sql-session';
import { Bit } from './fold-bits';
import { ImportCancelled } from '../import-errors';
import { rejection } from '../reading/staged-row';
import { ChunkPlan, documentKey, KnownDebt, MergeState, Refusal, StagedRow } from './merge-plan';

/** What a chunk (or replace's whole load) adds to the import's counters. */
export type ChunkOutcome = Pick<ChunkPlan, 'created' | 'updated' | 'errors' | 'errorDetails'> & {
  /** Of `updated`: rows whose debtor and debt already held every value the row gives them. */
  unchanged: number;
  paymentsRegistered: number;
  paymentsSkipped: number;
};

/** What a chunk's writes found: how many statements, the payments registered, the matched rows that changed nothing. */
export interface ChunkWrite {
  statements: number;
  paymentsRegistered: number;
  unchanged: number;
}

/** The chunk being merged: the import, its portfolio and the staged records `from`..`to`. */
export interface ChunkRange {
  importId: string;
  portfolioId: string;
  from: number;
  to: number;
}

// The plan of the chunk, one row per accepted staged row: the write statements join it to import_rows.
// A temporary table (the session's own, no WAL), emptied before each chunk.
const CREATE_PLAN = `
  CREATE TEMP TABLE IF NOT EXISTS import_plan (
    row_number integer PRIMARY KEY,
    debtor_id  text NOT NULL,
    debtor_new boolean NOT NULL,
    debt_id    text,
    debt_new   boolean NOT NULL,
    take       integer NOT NULL
  )`;

// The chunk's staged rows with their plan. The range on import_rows keeps every statement on the
// chunk's primary-key range, whatever the planner thinks of the temporary table.
const PLANNED = `
  FROM pg_temp.import_plan p
  JOIN import_rows s ON s.import_id = $1 AND s.row_number = p.row_number AND s.row_number BETWEEN $2 AND $3`;

const taken = (bit: number) => `p.take & ${bit} <> 0`;
const lastText = (column: string, bit: number, alias: string) => `max(s.${column}) FILTER (WHERE ${taken(bit)}) AS ${alias}`;
const lastFlag = (column: string, bit: number, alias: string) => `bool_or(s.${column}) FILTER (WHERE ${taken(bit)}) AS ${alias}`;

/** Where each debtor field of a write is staged (import_rows), and the bit of the row that provides it. */
const STAGED_DEBTOR: Record<DebtorAlias, readonly [column: string, bit: number]> = {
  fn: ['identity_first_name', Bit.identity],
  dt: ['identity_document_type', Bit.identity],
  dn: ['identity_document_number', Bit.identity],
  ln: ['identity_last_name', Bit.lastName],
  et: ['identity_entity_type', Bit.entityType],
  cn: ['contact_name', Bit.contactName],
  st: ['address_street', Bit.street],
  ci: ['address_city', Bit.city],
  sa: ['address_state', Bit.state],
  pc: ['address_postal_code', Bit.postalCode],
  co: ['address_country', Bit.country],
  oo: ['compliance_opt_out', Bit.optOut],
  cc: ['compliance_consent_to_call', Bit.consentToCall],
  cw: ['compliance_consent_to_whatsapp', Bit.consentToWhatsapp],
  ce: ['compliance_consent_to_email', Bit.consentToEmail],
  cs: ['compliance_consent_to_sms', Bit.consentToSms],
};

/** Where each debt field is staged: the amounts with the snapshot (always on a debt row), the texts each with its own bit. */
const STAGED_DEBT: Record<DebtAlias, readonly [column: string, bit: number]> = {
  total: ['debt_total_amount', Bit.snapshot],
  paid: ['debt_paid_amount', Bit.snapshot],
  due: ['debt_due_date', Bit.dueDate],
  iss: ['debt_issue_date', Bit.issueDate],
  descr: ['debt_description', Bit.description],
  dtype: ['debt_type', Bit.debtType],
};

/**
 * One row per debtor of the chunk, in the columns the write rules read (libs/debtor-writes): each
 * field from the row that provides it (fold-bits.ts).
 */
const DEBTOR_FOLD = `
  SELECT p.debtor_id AS id,
    ${lastText('debtor_external_id', Bit.externalId, 'ext')},
    ${DEBTOR_FIELDS.map((f) => (f.type === 'boolean' ? lastFlag : lastText)(...STAGED_DEBTOR[f.alias], f.alias)).join(',\n    ')}
  ${PLANNED}`;

/** One row per debt of the chunk. */
const DEBT_FOLD = `
  SELECT p.debt_id AS id, min(p.debtor_id) AS debtor_id, min(s.debt_external_id) AS ext,
    ${lastText('debt_currency', Bit.snapshot, 'cur')},
    ${DEBT_FIELDS.map((f) => lastText(...STAGED_DEBT[f.alias], f.alias)).join(',\n    ')}
  ${PLANNED}`;

/**
 * An UPDATE leaves a row whose stored values already equal the new ones (docs/adr/0022, 0046): a
 * file loaded again in update mode is mostly such rows, and each rewrite would be a new tuple and an
 * entry in each of the table's indexes; updated_at keeps meaning "changed".
 */
const UNCHANGED: UnchangedRows = 'skip';

/** The chunk's phones of the rows that provide them, in the columns writePhonesSql reads; the first of a row is primary. */
const PHONES = `
  SELECT v.id, p.debtor_id, v.phone, v.e164, v.pos, v.pos = 0 AS pr, NULL::text AS type, NULL::text AS owner
  ${PLANNED}
  CROSS JOIN LATERAL (VALUES (s.phone_1_id, s.phone_1, s.phone_1_e164, 0), (s.phone_2_id, s.phone_2, s.phone_2_e164, 1),
    (s.phone_3_id, s.phone_3, s.phone_3_e164, 2)) AS v(id, phone, e164, pos)
  WHERE ${taken(Bit.phones)} AND v.e164 IS NOT NULL`;

/**
 * The merge's SQL (docs/adr/0022): a chunk's staged rows and the stored state they are decided
 * against, then a fixed number of set-based statements that write the plan — INSERT … SELECT and
 * UPDATE … FROM over import_rows, never a statement per row. Every statement of a chunk runs in the
 * transaction that holds the portfolio's lock (ImportMerger).
 */
/**
 * Mode add: the live debtor this import created for each document (the lowest id), $1 the import,
 * $2/$3 the documents' types and numbers. Key by key: each table is read only in a LATERAL subquery
 * keyed by the row before it (OFFSET 0 keeps the planner from flattening them into one join it
 * could reorder), so the plan is index lookups per key whatever the statistics say. A dry run's
 * transaction is where they lie (docs/adr/0049): they show none of the debtors it wrote, and a
 * plain join hashed those "few" debtors against every row staged so far, or walked the debtors'
 * primary key for each key — per chunk, so a dry add of 1,000,000 rows took 1.92× the real run
 * (the plan is tested in test/merge-lookup-plans.e2e-spec.ts).
 */
export const CREATED_BY_DOCUMENT_SQL = `SELECT DISTINCT ON (k.t, k.n) k.t, k.n, d.id, d.o
  FROM unnest($2::text[], $3::text[]) AS k(t, n)
  CROSS JOIN LATERAL (
    SELECT s.new_debtor_id FROM import_rows s
    WHERE s.import_id = $1 AND s.identity_document_type = k.t AND s.identity_document_number = k.n OFFSET 0) AS s
  CROSS JOIN LATERAL (
    SELECT d.id, d.compliance_opt_out AS o FROM debtors d WHERE d.id = s.new_debtor_id AND d.deleted_at IS NULL OFFSET 0) AS d
  ORDER BY k.t, k.n, d.id`;

@Injectable()
export class MergeRepository {
  constructor(private readonly tombstones: ErasureTombstones) {}

  /** Once per session: the plan's temporary table. */
  async prepare(session: Session): Promise<void> {
    await session.query(CREATE_PLAN);
  }

  /**
   * The portfolio's advisory lock, exclusive, for the rest of the transaction — the key the debtor
   * batch uses (ADR 0012), so a concurrent batch write to the portfolio never interleaves with a chunk.
   * The merge's statements get the import's longer statement timeout.
   */
  async lockPortfolio(session: Session, portfolioId: string, statementTimeoutMs: number): Promise<void> {
    // Every statement of a chunk looks its rows up by key (KEYED_ONLY_SETTINGS: measured at 400,000
    // debtors, 135 ms scanned vs 14 ms probed per read, quadratic over a large file).
    // One round trip (simple protocol, so the key is a literal): the settings, then the lock.
    const settings = setLocalSql({ statement_timeout: String(Math.floor(statementTimeoutMs)), ...KEYED_ONLY_SETTINGS });
    await session.query(`${settings}; ${importLockSql(session.escapeLiteral(portfolioLockKey(portfolioId)))}`);
  }

  async stagedRows(session: Session, range: ChunkRange): Promise<StagedRow[]> {
    return rows<StagedRow>(
      session,
      `SELECT row_number AS "rowNumber", error_details AS "errorDetails", identity_document_type AS "documentType",
         identity_document_number AS "documentNumber", debtor_external_id AS "debtorExternalId",
         new_debtor_id AS "newDebtorId", present, compliance_opt_out AS "optOut", debt_external_id AS "debtExternalId",
         debt_currency AS "debtCurrency", new_debt_id AS "newDebtId", payment_external_id AS "paymentExternalId"
       FROM import_rows WHERE import_id = $1 AND row_number BETWEEN $2 AND $3 ORDER BY row_number`,
      [range.importId, range.from, range.to],
    );
  }

  /**
   * The live state the chunk's rows are decided against. `ownDebtorsOnly` (mode add): a document
   * resolves only to the debtor an earlier row of this import created (found through that row's
   * new_debtor_id: the rows of this chunk and later ones have created nothing yet), a debt external
   * id only to those debtors' debts, and no external id is refused for being live; otherwise a
   * document resolves to the portfolio's live debtor with it, the lowest id, and a debt external id
   * to every live debt of the portfolio with it (docs/adr/0041).
   */
  async readState(session: Session, range: ChunkRange, staged: StagedRow[], ownDebtorsOnly: boolean): Promise<MergeState> {
    const valid = staged.filter((r) => !r.errorDetails);
    const documents = new Map<string, [string, string]>();
    for (const r of valid) documents.set(documentKey(r.documentType, r.documentNumber), [r.documentType, r.documentNumber]);
    const types = [...documents.values()].map((d) => d[0]);
    const numbers = [...documents.values()].map((d) => d[1]);
    const debtIds = unique(valid.map((r) => r.debtExternalId));

    const byDocument = !documents.size
      ? []
      : ownDebtorsOnly
        ? await rows<{ t: string; n: string; id: string; o: boolean }>(session, CREATED_BY_DOCUMENT_SQL, [range.importId, types, numbers])
        : await rows<{ t: string; n: string; id: string; o: boolean }>(
            session,
            `SELECT DISTINCT ON (d.identity_document_type, d.identity_document_number)
               d.identity_document_type AS t, d.identity_document_number AS n, d.id, d.compliance_opt_out AS o
             FROM unnest($2::text[], $3::text[]) AS k(t, n)
             JOIN debtors d ON d.portfolio_id = $1 AND d.deleted_at IS NULL AND d.identity_document_type = k.t AND d.identity_document_number = k.n
             ORDER BY d.identity_document_type, d.identity_document_number, d.id`,
            [range.portfolioId, types, numbers],
          );
    // External ids and erasures matter only to rows that would create their debtor.
    const resolved = new Set(byDocument.map((d) => documentKey(d.t, d.n)));
    const creating = valid.filter((r) => r.debtorExternalId !== null && !resolved.has(documentKey(r.documentType, r.documentNumber)));
    const externalIds = unique(creating.map((r) => r.debtorExternalId));
    // Every tombstone value that would refuse one of them: the keyed hash and the legacy ones (ADR 0025).
    const hashes = this.tombstones.candidatesOf(externalIds);
    const owners = externalIds.length && !ownDebtorsOnly
      ? await rows<{ ext: string; id: string }>(
          session,
          `SELECT external_id AS ext, id FROM debtors WHERE portfolio_id = $1 AND deleted_at IS NULL AND external_id = ANY($2::text[])`,
          [range.portfolioId, externalIds],
        )
      : [];
    const tombstones = tombstonesStatement(range.portfolioId, hashes);
    const erased = hashes.length ? await rows<{ hash: string }>(session, tombstones.text, tombstones.values) : [];
    const ownDebtors = byDocument.map((d) => d.id);
    const debts = !debtIds.length || (ownDebtorsOnly && !ownDebtors.length)
      ? []
      : ownDebtorsOnly
        ? await rows<KnownDebt & { ext: string }>(
            session,
            `SELECT external_id AS ext, id, debtor_id AS "debtorId", currency
             FROM debts WHERE debtor_id = ANY($1::text[]) AND deleted_at IS NULL AND external_id = ANY($2::text[]) ORDER BY id`,
            [ownDebtors, debtIds],
          )
        : await rows<KnownDebt & { ext: string }>(
            session,
            `SELECT external_id AS ext, id, debtor_id AS "debtorId", currency
             FROM debts WHERE portfolio_id = $1 AND deleted_at IS NULL AND external_id = ANY($2::text[]) ORDER BY id`,
            [range.portfolioId, debtIds],
          );
    const debtsByExt = new Map<string, KnownDebt[]>();
    for (const d of debts) {
      const known = { id: d.id, debtorId: d.debtorId, currency: d.currency };
      const list = debtsByExt.get(d.ext);
      if (list) list.push(known);
      else debtsByExt.set(d.ext, [known]);
    }
    return {
      debtorsByDocument: new Map(byDocument.map((d) => [documentKey(d.t, d.n), { id: d.id, optOut: d.o }])),
      externalIdOwners: new Map(owners.map((o) => [o.ext, o.id])),
      erasedExternalIds: erasedAmong(this.tombstones, externalIds, erased),
      debts: debtsByExt,
    };
  }

  /**
   * Writes the chunk's plan: each statement sent only when it has something to write. Returns the
   * statements sent and the payments registered (the others' file ids were registered already).
   */
  async write(session: Session, range: ChunkRange, plan: ChunkPlan): Promise<ChunkWrite> {
    const c = plan.counts;
    const chunk = [range.importId, range.from, range.to];
    let statements = 0;
    const exec = async (text: string, values: unknown[] = chunk) => {
      statements += 1;
      return (await session.query(text, values)).rowCount ?? 0;
    };
    // Existing debtors and debts a statement changed (its RETURNING): a matched row none of whose
    // writes changed anything is `unchanged` — the guards that skip equal rows decide it (UNCHANGED).
    const changedDebtors = new Set<string>();
    const changedDebts = new Set<string>();
    const collect = async (into: Set<string>, text: string, values: unknown[] = chunk) => {
      statements += 1;
      for (const row of (await session.query<{ id: string }>(text, values)).rows) into.add(row.id);
    };
    await exec('TRUNCATE pg_temp.import_plan', []);
    if (!plan.rows.length && !plan.optOuts.length) return { statements, paymentsRegistered: 0, unchanged: 0 };
    const p = plan.rows;
    // Comma-separated columns (ids, numbers and booleans hold no comma): parsed in a third less time
    // than array parameters, whose every element is quoted and escaped.
    await exec(
      `INSERT INTO pg_temp.import_plan (row_number, debtor_id, debtor_new, debt_id, debt_new, take)
       SELECT * FROM unnest(string_to_array($1, ',')::int[], string_to_array($2, ','), string_to_array($3, ',')::boolean[],
         string_to_array($4, ',', ''), string_to_array($5, ',')::boolean[], string_to_array($6, ',')::int[])`,
      [
        p.map((r) => r.rowNumber).join(','),
        p.map((r) => r.debtorId).join(','),
        p.map((r) => (r.debtorNew ? 't' : 'f')).join(','),
        p.map((r) => r.debtId ?? '').join(','),
        p.map((r) => (r.debtNew ? 't' : 'f')).join(','),
        p.map((r) => r.take).join(','),
      ],
    );
    // The write rules are the debtor batch's (libs/debtor-writes); here each statement's rows are the
    // chunk's staged rows, folded per debtor and per debt (`$1`..`$3`: the chunk, `$4`: the portfolio).
    if (c.newDebtors) {
      await exec(insertDebtorsSql(`(${DEBTOR_FOLD} WHERE p.debtor_new GROUP BY p.debtor_id) AS u`, '$4'), [...chunk, range.portfolioId]);
    }
    if (c.updatedDebtors) {
      await collect(changedDebtors, `${updateDebtorsSql(`(${DEBTOR_FOLD} WHERE NOT p.debtor_new GROUP BY p.debtor_id) AS u`, { unchanged: UNCHANGED })} RETURNING d.id`);
    }
    if (c.phoneReplacements) {
      // The row with phones is the full authority on its debtor's numbers: the others go.
      await collect(
        changedDebtors,
        `${deleteUnlistedPhonesSql({
          using: `pg_temp.import_plan p
            JOIN import_rows s ON s.import_id = $1 AND s.row_number = p.row_number AND s.row_number BETWEEN $2 AND $3`,
          where: `${taken(Bit.phones)} AND NOT p.debtor_new AND ph.debtor_id = p.debtor_id`,
          unlisted: `ph.phone_e164 IS DISTINCT FROM s.phone_1_e164 AND ph.phone_e164 IS DISTINCT FROM s.phone_2_e164
            AND ph.phone_e164 IS DISTINCT FROM s.phone_3_e164`,
        })} RETURNING ph.debtor_id AS id`,
      );
    }
    if (c.phoneSets > c.phoneReplacements) {
      // New debtors' numbers: no number to meet, so no ON CONFLICT (its speculative insertion costs).
      await exec(writePhonesSql(`(${PHONES} AND p.debtor_new) AS u`, { origin: 'import', known: 'insert', unchanged: UNCHANGED }));
    }
    if (c.phoneReplacements) {
      await collect(changedDebtors, `${writePhonesSql(`(${PHONES} AND NOT p.debtor_new) AS u`, { origin: 'import', known: 'upsert', unchanged: UNCHANGED })} RETURNING ph.debtor_id AS id`);
    }
    if (c.emailReplacements) {
      // A list is rewritten whole; its debtor changed when the addresses, in order, differ.
      await collect(
        changedDebtors,
        `SELECT p.debtor_id AS id ${PLANNED}
         WHERE ${taken(Bit.emails)} AND NOT p.debtor_new
           AND array_remove(ARRAY[s.email_1, s.email_2], NULL)
             IS DISTINCT FROM ARRAY(SELECT e.address FROM debtor_emails e WHERE e.debtor_id = p.debtor_id ORDER BY e.position)`,
      );
      await exec(deleteEmailsSql({ using: 'pg_temp.import_plan p', where: `${taken(Bit.emails)} AND NOT p.debtor_new AND e.debtor_id = p.debtor_id` }), []);
    }
    if (c.emailSets) {
      // A row with any email replaces the list; the first is primary.
      await exec(
        insertEmailsSql(`(
          SELECT v.id, p.debtor_id, v.address, v.pos, v.pos = 0 AS pr, NULL::text AS type
          ${PLANNED}
          CROSS JOIN LATERAL (VALUES (s.email_1_id, s.email_1, 0), (s.email_2_id, s.email_2, 1)) AS v(id, address, pos)
          WHERE ${taken(Bit.emails)} AND v.address IS NOT NULL) AS u`),
      );
    }
    if (c.newDebts) {
      await exec(insertDebtsSql(`(${DEBT_FOLD} WHERE p.debt_new GROUP BY p.debt_id) AS u`, '$4'), [...chunk, range.portfolioId]);
    }
    if (c.updatedDebts) {
      await collect(changedDebts, `${updateDebtsSql(`(${DEBT_FOLD} WHERE p.debt_id IS NOT NULL AND NOT p.debt_new GROUP BY p.debt_id) AS u`, { unchanged: UNCHANGED })} RETURNING t.id`);
    }
    let paymentsRegistered = 0;
    if (c.payments) {
      // After the debts: each payment names its row's debt (or only its debtor). The currency is
      // derived as POST /v1/payments derives it: the row's debt, else the single currency of the
      // debtor's live debts, else the portfolio's main currency. No outbox row: a load's payments emit
      // no payment.registered. A file id already registered in the portfolio registers nothing.
      paymentsRegistered = await exec(
        `INSERT INTO payments (id, portfolio_id, debtor_id, debt_id, amount, currency, currency_derived, payment_date,
           payment_method, reference, source, import_external_id)
         SELECT s.new_payment_id, $4, p.debtor_id, p.debt_id, s.payment_amount,
           COALESCE(s.payment_currency, CASE WHEN p.debt_id IS NOT NULL THEN s.debt_currency END,
             (SELECT min(t.currency) FROM debts t WHERE t.debtor_id = p.debtor_id AND t.deleted_at IS NULL HAVING count(DISTINCT t.currency) = 1),
             (SELECT f.identity_currency[1] FROM portfolios f WHERE f.id = $4)),
           s.payment_currency IS NULL, s.payment_date, COALESCE(s.payment_method, '${DEFAULT_PAYMENT_METHOD}'), s.payment_reference,
           'import', s.payment_external_id
         ${PLANNED}
         WHERE s.payment_external_id IS NOT NULL
         ORDER BY p.row_number
         ON CONFLICT (portfolio_id, import_external_id) WHERE import_external_id IS NOT NULL DO NOTHING`,
        [...chunk, range.portfolioId],
      );
    }
    if (plan.optOuts.length) statements += await this.recordOptOuts(session, range.importId, plan.optOuts);
    const unchanged = plan.rows.filter(
      (r) => !r.debtorNew && !r.debtNew && !changedDebtors.has(r.debtorId) && (r.debtId === null || !changedDebts.has(r.debtId)),
    ).length;
    return { statements, paymentsRegistered, unchanged };
  }

  /**
   * The chunk's refused rows, as they were in the file, into import_rejected_rows: those the reading
   * refused (staged with their rejection) and those the merge refused (`refusals`). Through the
   * chunk's own transaction, or — for a run whose merge rolls back or may be run again whole (a dry
   * run, replace) — through another session, after `forgetRejections`.
   */
  async recordRejections(session: Session, range: ChunkRange, refusals: readonly Refusal[]): Promise<void> {
    const merged = refusals.map((r) => ({ ...r, ...rejection([r]) }));
    await session.query(
      `INSERT INTO import_rejected_rows (import_id, row_number, source, error_column, error_message)
       SELECT s.import_id, s.row_number, s.source, s.error_column, s.error_message FROM import_rows s
       WHERE s.import_id = $1 AND s.row_number BETWEEN $2 AND $3 AND s.error_details IS NOT NULL AND s.source IS NOT NULL
       UNION ALL
       SELECT s.import_id, s.row_number, s.source, r.col, r.msg
       FROM unnest($4::int[], $5::text[], $6::text[]) AS r(n, col, msg)
       JOIN import_rows s ON s.import_id = $1 AND s.row_number = r.n AND s.row_number BETWEEN $2 AND $3
       WHERE s.source IS NOT NULL
       ON CONFLICT (import_id, row_number) DO UPDATE SET source = EXCLUDED.source, error_column = EXCLUDED.error_column,
         error_message = EXCLUDED.error_message`,
      [range.importId, range.from, range.to, merged.map((r) => r.rowNumber), merged.map((r) => r.column), merged.map((r) => r.message)],
    );
  }

  /** Before a run that records its rejections apart from its merge starts over: none of an earlier run stays. */
  async forgetRejections(session: Session, importId: string): Promise<void> {
    await session.query('DELETE FROM import_rejected_rows WHERE import_id = $1', [importId]);
  }

  /** An opt-out recorded as the debtor batch records it (recordOptOutStatements), naming the import. */
  private async recordOptOuts(session: Session, importId: string, debtorIds: string[]): Promise<number> {
    const statements = recordOptOutStatements(debtorIds, optOutThroughImport(importId), newId);
    for (const statement of statements) await session.query(statement.text, statement.values);
    return statements.length;
  }

  /** The chunk's outcome on the imports row, in the chunk's transaction: merged_row and the counters. */
  async recordProgress(session: Session, importId: string, mergedRow: number, plan: ChunkOutcome): Promise<void> {
    const result = await session.query(
      `UPDATE imports SET merged_row = $2, created = created + $3, updated = updated + $4, errors = errors + $5,
         processed_rows = processed_rows + $3 + $4 + $5,
         payments_registered = payments_registered + $7, payments_skipped = payments_skipped + $8, unchanged = unchanged + $9,
         error_details = CASE WHEN cardinality($6::text[]) = 0 THEN error_details
           ELSE (error_details || $6::text[])[1:${ImportLimits.maxErrorDetails}] END,
         updated_at = now()
       WHERE id = $1 AND status = 'processing'`,
      [importId, mergedRow, plan.created, plan.updated, plan.errors, plan.errorDetails.slice(0, ImportLimits.maxErrorDetails),
        plan.paymentsRegistered, plan.paymentsSkipped, plan.unchanged],
    );
    // Cancelled by an operator meanwhile: the chunk's transaction rolls back.
    if (result.rowCount === 0) throw new ImportCancelled();
  }

  /**
   * The planner's statistics of what the merge reads: when a run starts merging (the staging table's
   * are otherwise those of an empty table or of another import — measured: 500 ms instead of 35 ms
   * per lookup, or minutes when forced into nested loops), then while the import grows the tables
   * (AnalyzeSchedule). Through a SECURITY DEFINER function: the importer's role does not own the
   * tables (docs/adr/0027).
   */
  async refreshStatistics(session: Session): Promise<void> {
    await session.query('SELECT refresh_import_statistics(true)');
  }

  async setPhase(session: Session, importId: string, phase: 'merging' | 'finishing'): Promise<void> {
    await session.query('UPDATE imports SET phase = $2, updated_at = now() WHERE id = $1', [importId, phase]);
  }

  /** Replace: every live debtor and debt of the portfolio is soft-deleted (in the replace's one transaction). Returns the debtors. */
  async softDeletePortfolio(session: Session, portfolioId: string): Promise<number> {
    await session.query('UPDATE debts SET deleted_at = now(), updated_at = now() WHERE portfolio_id = $1 AND deleted_at IS NULL', [portfolioId]);
    const debtors = await session.query('UPDATE debtors SET deleted_at = now(), updated_at = now() WHERE portfolio_id = $1 AND deleted_at IS NULL', [portfolioId]);
    return debtors.rowCount ?? 0;
  }

  /** The effect of a whole run beside its rows: debts reconcile marked paid, debtors replace removed. */
  async recordEffect(session: Session, importId: string, effect: { markedPaid: number; deleted: number }): Promise<void> {
    await session.query('UPDATE imports SET marked_paid = $2, deleted = $3, updated_at = now() WHERE id = $1', [importId, effect.markedPaid, effect.deleted]);
  }
}

function unique(values: (string | null)[]): string[] {
  return [...new Set(values.filter((v): v is string => v !== null))];
}
