import { Injectable } from '@nestjs/common';
import { ErasureTombstones, type BatchDebtorDto, type IdPrefix } from '@dc/contracts';
import { Database, isWriteConflict, ReadRouter, newId, Prisma, type SqlStatement, type SqlTransaction } from '@dc/database';
import {
  batchLockStatements, DEBT_FIELDS, type DebtAlias, DEBTOR_FIELDS, DEBTOR_NATURAL_KEYS, type DebtorAlias, deleteEmailsSql, deleteUnlistedPhonesSql,
  erasedAmong, insertDebtorsSql, insertDebtsSql, insertEmailsSql, KEYED_ONLY_SETTINGS, OPT_OUT_THROUGH_BATCH, Params,
  recordOptOutStatements, tombstonesStatement, unnestRows, updateDebtorsSql, updateDebtsSql, writePhonesSql, type ArrayColumn,
  type UnchangedRows,
} from '@dc/debtor-writes';
import { batchState, type BatchState, type BatchWrites, type DebtorWrite, type DebtWrite, type PreparedDebt, type ExistingDebt, type ExistingDebtor } from './batch-plan';

const sql = Prisma.sql;

/** One batch transaction; counts the statements it sends (logged at debug, read by the benchmark). */
export class BatchTx {
  statements = 0;

  constructor(private readonly tx: SqlTransaction) {}

  query<T extends object>(query: SqlStatement): Promise<T[]> {
    this.statements += 1;
    return this.tx.query<T & Record<string, unknown>>(query);
  }

  exec(query: SqlStatement): Promise<number> {
    this.statements += 1;
    return this.tx.execute(query);
  }
}

/**
 * A resent item rewrites its rows even when nothing changed (docs/adr/0046): every item the batch
 * answers `updated` gets a new row version and updated_at — what its keyed-plan check counts, one
 * update per row sent (docs/adr/0040). The import skips unchanged rows.
 */
const UNCHANGED: UnchangedRows = 'rewrite';

/** Where each debtor field of a write is in the batch's item (a property holding one value, not a list). */
const DEBTOR_PROPERTY: Record<DebtorAlias, Exclude<keyof BatchDebtorDto, 'externalId' | 'contactInfoPhoneNumbers' | 'contactInfoEmails' | 'debts'>> = {
  fn: 'identityFirstName',
  dt: 'identityDocumentType',
  dn: 'identityDocumentNumber',
  ln: 'identityLastName',
  et: 'identityEntityType',
  cn: 'contactInfoContactName',
  st: 'contactInfoAddressStreet',
  ci: 'contactInfoAddressCity',
  sa: 'contactInfoAddressState',
  pc: 'contactInfoAddressPostalCode',
  co: 'contactInfoAddressCountry',
  oo: 'complianceOptOut',
  cc: 'complianceConsentToCall',
  cw: 'complianceConsentToWhatsapp',
  ce: 'complianceConsentToEmail',
  cs: 'complianceConsentToSms',
};

/** Where each debt field of a write is in the prepared debt (amounts as numeric(19,4) text). */
const DEBT_PROPERTY: Record<DebtAlias, Exclude<keyof PreparedDebt, 'externalId' | 'currency' | 'paid'>> = {
  total: 'totalAmount',
  paid: 'paidAmount',
  due: 'dueDate',
  iss: 'issueDate',
  descr: 'description',
  dtype: 'debtType',
};

const debtorColumns = (rows: DebtorWrite[]): ArrayColumn[] =>
  DEBTOR_FIELDS.map((f) => [f.alias, f.type, rows.map((r) => r.dto[DEBTOR_PROPERTY[f.alias]] ?? null)]);
const debtColumns = (rows: DebtWrite[]): ArrayColumn[] => DEBT_FIELDS.map((f) => [f.alias, f.type, rows.map((r) => r.debt[DEBT_PROPERTY[f.alias]])]);

/**
 * The debtor batch's SQL. Its statements are those of the debtor write rules (libs/debtor-writes),
 * fed whole columns as arrays (`unnest`), so a batch sends the same handful of statements whatever
 * its size (docs/adr/0012, 0046).
 */
@Injectable()
export class DebtorBatchRepository {
  constructor(
    private readonly db: Database,
    private readonly tombstones: ErasureTombstones,
    private readonly reads: ReadRouter,
  ) {}

  /**
   * The batch's transaction. `writer`: the API key whose write it is; its commit's WAL position, read
   * in the COMMIT's round trip, is recorded for that key's reads before this returns (docs/adr/0050).
   */
  async transaction<T>(fn: (tx: BatchTx) => Promise<T>, writer?: string): Promise<T> {
    // Through pg: its statements carry arrays of up to thousands of values (docs/adr/0034). Bounded
    // like every transaction by DATABASE_STATEMENT_TIMEOUT_MS (docs/adr/0014). No sequential scans:
    // every statement names its rows by key, so its cost follows the batch, not the tables
    // (docs/adr/0040).
    const { result, lsn } = await this.db.sqlTransactionCommitted((tx) => fn(new BatchTx(tx)), { settings: KEYED_ONLY_SETTINGS });
    if (writer) await this.reads.wrote(writer, lsn);
    return result;
  }

  /** Whether a failed attempt lost to a concurrent writer, so that the batch may run again (SQLSTATE and constraint). */
  isConflict(err: unknown): boolean {
    return isWriteConflict(err, DEBTOR_NATURAL_KEYS);
  }

  /** The id of a row the batch will insert (the plan names new debtors and debts before writing). */
  newId(prefix: IdPrefix): string {
    return newId(prefix);
  }

  /** Serialises concurrent batches on the same debtor or debt externalIds, and each batch with its portfolio's imports (batchLockStatements). */
  async lockKeys(tx: BatchTx, portfolioId: string, debtorExternalIds: string[], debtExternalIds: string[]): Promise<void> {
    for (const lock of batchLockStatements(portfolioId, debtorExternalIds, debtExternalIds)) await tx.exec(lock);
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
      keys.erasureHashes.length ? await tx.query<{ hash: string }>(tombstonesStatement(portfolioId, keys.erasureHashes)) : [],
      keys.debtExternalIds.length
        ? await tx.query<ExistingDebt>(sql`
          SELECT id, external_id AS "externalId", debtor_id AS "debtorId", currency
          FROM debts
          WHERE portfolio_id = ${portfolioId} AND external_id = ANY(${keys.debtExternalIds}::text[]) AND deleted_at IS NULL
          ORDER BY id`)
        : [],
    ];
    // In id order: with duplicate externalIds (docs/adr/0041) the oldest debtor is matched.
    return batchState(debtors, erasedAmong(this.tombstones, keys.debtorExternalIds, erased), debts);
  }

  async write(tx: BatchTx, portfolioId: string, w: BatchWrites): Promise<void> {
    if (w.newDebtors.length) await this.insertDebtors(tx, portfolioId, w.newDebtors);
    if (w.updatedDebtors.length) await this.updateDebtors(tx, w.updatedDebtors);
    if (w.phoneSets.length) await this.writePhones(tx, w);
    if (w.emailSets.length) await this.writeEmails(tx, w);
    if (w.newDebts.length) await this.insertDebts(tx, portfolioId, w.newDebts);
    if (w.updatedDebts.length) await this.updateDebts(tx, w.updatedDebts);
    if (w.optOuts.length) {
      for (const statement of recordOptOutStatements(w.optOuts, OPT_OUT_THROUGH_BATCH, newId)) await tx.exec(statement);
    }
  }

  private insertDebtors(tx: BatchTx, portfolioId: string, rows: DebtorWrite[]) {
    const p = new Params();
    const portfolio = p.add(portfolioId, 'text');
    const from = unnestRows(p, [['id', 'text', rows.map((r) => r.id)], ['ext', 'text', rows.map((r) => r.dto.externalId)], ...debtorColumns(rows)]);
    return tx.exec(p.statement(insertDebtorsSql(from, portfolio)));
  }

  private updateDebtors(tx: BatchTx, rows: DebtorWrite[]) {
    const p = new Params();
    const ids = rows.map((r) => r.id);
    const from = unnestRows(p, [['id', 'text', ids], ...debtorColumns(rows)]);
    return tx.exec(p.statement(updateDebtorsSql(from, { unchanged: UNCHANGED, ids: p.add(ids, 'text[]') })));
  }

  /** Phones, for debtors that sent a non-empty list: the list is the full authority (writePhonesSql). */
  private async writePhones(tx: BatchTx, w: BatchWrites) {
    // Each phone with its place, not a copy of it with its place ({ ...p, position } is slow in V8).
    const flat = w.phoneSets.flatMap((s) => s.phones.map((phone, position) => ({ phone, position, debtorId: s.debtorId })));
    const owners = flat.map((p) => p.debtorId);
    const numbers = flat.map((p) => p.phone.e164);
    const lists = new Params();
    const debtors = lists.add(w.phoneSets.map((s) => s.debtorId), 'text[]');
    await tx.exec(lists.statement(deleteUnlistedPhonesSql({
      where: `ph.debtor_id = ANY(${debtors})`,
      unlisted: `NOT EXISTS (
        SELECT 1 FROM unnest(${lists.add(owners, 'text[]')}, ${lists.add(numbers, 'text[]')}) AS k(debtor_id, e164)
        WHERE k.debtor_id = ph.debtor_id AND k.e164 = ph.phone_e164)`,
    })));
    const p = new Params();
    const from = unnestRows(p, [
      ['id', 'text', flat.map(() => newId('phn'))],
      ['debtor_id', 'text', owners],
      ['phone', 'text', flat.map((x) => x.phone.phone)],
      ['e164', 'text', numbers],
      ['pos', 'int', flat.map((x) => x.position)],
      ['pr', 'boolean', flat.map((x) => x.phone.primary)],
      ['type', 'text', flat.map((x) => x.phone.type)],
      ['owner', 'text', flat.map((x) => x.phone.owner)],
    ]);
    await tx.exec(p.statement(writePhonesSql(from, { origin: 'api', known: 'upsert', unchanged: UNCHANGED })));
  }

  /** Emails: a sent list replaces the whole list (an empty list deletes all). */
  private async writeEmails(tx: BatchTx, w: BatchWrites) {
    const lists = new Params();
    await tx.exec(lists.statement(deleteEmailsSql({ where: `e.debtor_id = ANY(${lists.add(w.emailSets.map((s) => s.debtorId), 'text[]')})` })));
    const flat = w.emailSets.flatMap((s) => s.emails.map((email, position) => ({ email, position, debtorId: s.debtorId })));
    if (!flat.length) return;
    const p = new Params();
    const from = unnestRows(p, [
      ['id', 'text', flat.map(() => newId('eml'))],
      ['debtor_id', 'text', flat.map((e) => e.debtorId)],
      ['address', 'text', flat.map((e) => e.email.address)],
      ['pos', 'int', flat.map((e) => e.position)],
      ['pr', 'boolean', flat.map((e) => e.email.primary)],
      ['type', 'text', flat.map((e) => e.email.type)],
    ]);
    await tx.exec(p.statement(insertEmailsSql(from)));
  }

  private insertDebts(tx: BatchTx, portfolioId: string, rows: DebtWrite[]) {
    const p = new Params();
    const portfolio = p.add(portfolioId, 'text');
    const from = unnestRows(p, [
      ['id', 'text', rows.map((x) => x.id)],
      ['debtor_id', 'text', rows.map((x) => x.debtorId)],
      ['ext', 'text', rows.map((x) => x.debt.externalId)],
      ['cur', 'text', rows.map((x) => x.debt.currency)],
      ...debtColumns(rows),
    ]);
    return tx.exec(p.statement(insertDebtsSql(from, portfolio)));
  }

  private updateDebts(tx: BatchTx, rows: DebtWrite[]) {
    const p = new Params();
    const ids = rows.map((x) => x.id);
    const from = unnestRows(p, [['id', 'text', ids], ...debtColumns(rows)]);
    return tx.exec(p.statement(updateDebtsSql(from, { unchanged: UNCHANGED, ids: p.add(ids, 'text[]') })));
  }
}
