import { optOutBegins } from '@dc/debtor-writes';
import { Bit, DEBT_OPTIONAL_BITS, DEBTOR_OPTIONAL_BITS } from './fold-bits';

/**
 * The merge of one chunk, decided in memory (docs/adr/0022), like the debtor batch's planBatch
 * (docs/adr/0012): the chunk's staged rows in file order against the state read under the
 * portfolio's lock. Each row is decided as if the rows before it had already been written, so a
 * file means the same whether it is merged in one chunk or in many. Pure: no I/O.
 */

/** What the merge needs of a staged row (the rest of it stays in import_rows). */
export interface StagedRow {
  rowNumber: number;
  /** A row that broke a rule while reading: its errorDetails lines. */
  errorDetails: string[] | null;
  documentType: string;
  documentNumber: string;
  debtorExternalId: string | null;
  newDebtorId: string;
  /** Bits (fold-bits.ts) of the optional fields the row fills. */
  present: number;
  optOut: boolean | null;
  debtExternalId: string | null;
  debtCurrency: string | null;
  newDebtId: string | null;
  /** The file's id of the row's payment (null: the row has none). */
  paymentExternalId: string | null;
}

export interface KnownDebtor {
  id: string;
  optOut: boolean;
}

export interface KnownDebt {
  id: string;
  debtorId: string;
  currency: string;
}

/** The stored state the chunk's rows are decided against (live rows of the portfolio only). */
export interface MergeState {
  /**
   * The debtor each document of the chunk resolves to: in mode add, the one an earlier row of this
   * import created; otherwise the portfolio's live debtor with that document (the lowest id).
   */
  debtorsByDocument: Map<string, KnownDebtor>;
  /** Live debtors holding the chunk's debtor external ids: external id → debtor id. */
  externalIdOwners: Map<string, string>;
  /** The chunk's debtor external ids that a tombstone of the portfolio refuses (ErasureTombstones, docs/adr/0025). */
  erasedExternalIds: Set<string>;
  /**
   * Live debts among the chunk's debt external ids, each id's lowest debt id first (mode add may
   * leave several, docs/adr/0041). In mode add, only the debts of debtorsByDocument's debtors: add
   * matches a debt within its own debtor only.
   */
  debts: Map<string, KnownDebt[]>;
}

/** One accepted row: what it writes. */
export interface PlannedRow {
  rowNumber: number;
  debtorId: string;
  /** The debtor does not exist before this chunk (it is inserted, folded from its rows). */
  debtorNew: boolean;
  debtId: string | null;
  debtNew: boolean;
  /** Bits (fold-bits.ts) of the fields this row provides to its debtor's and debt's final write. */
  take: number;
}

export interface ChunkPlan {
  rows: PlannedRow[];
  created: number;
  updated: number;
  errors: number;
  /** `row <n>: <column>: <message>` of every refused row, in row order. */
  errorDetails: string[];
  /** The rows this merge refused (the reading's refusals are staged with theirs): for the rejected-rows file. */
  refusals: Refusal[];
  /** Debtors whose opt-out becomes true in this chunk (note, timeline entry, pending messages cancelled). */
  optOuts: string[];
  /** How many of each write the chunk needs: a statement with nothing to write is not sent. */
  counts: PlanCounts;
}

export interface Refusal {
  rowNumber: number;
  /** The CSV header name of the value at fault. */
  column: string;
  message: string;
}

export interface PlanCounts {
  newDebtors: number;
  updatedDebtors: number;
  /** Rows whose phones are written; of them, rows of existing debtors (whose other numbers are removed). */
  phoneSets: number;
  phoneReplacements: number;
  /** Rows whose emails are written; of them, rows of existing debtors (whose emails are replaced). */
  emailSets: number;
  emailReplacements: number;
  newDebts: number;
  updatedDebts: number;
  /** Accepted rows with a payment (registered unless the file's payment id already is). */
  payments: number;
}

export interface PlanOptions {
  /**
   * add: every row creates its debtor (or joins the one an earlier row of the file created with its
   * document), whatever external ids are live; a debt is matched only within its debtor.
   * update: debtors by document, debts by external id across the portfolio (debt_external_id_in_use).
   */
  mode: 'add' | 'update';
  /** The CSV header name of each field that can be refused here. */
  columns: { debtorExternalId: string; debtExternalId: string; debtCurrency: string };
}

export const MergeMessages = {
  externalIdInUse: (ext: string) => `${ext} is already used by another debtor of this portfolio (with another document)`,
  erased: "this debtor was erased at the data subject's request and cannot be recreated (erased_subject)",
  debtInUse: (ext: string) => `debt ${ext} belongs to another debtor of this portfolio (debt_external_id_in_use)`,
  currencyMismatch: (ext: string, stored: string) => `debt ${ext} is in ${stored}; the currency of a debt never changes (debt_currency_mismatch)`,
} as const;

/** The key of a document in maps: type and number, which cannot contain a NUL. */
export function documentKey(type: string, number: string): string {
  return `${type}\u0000${number}`;
}

interface DebtorInChunk extends KnownDebtor {
  isNew: boolean;
}

interface DebtInChunk extends KnownDebt {
  isNew: boolean;
}

const DEBTOR_OPTIONAL = DEBTOR_OPTIONAL_BITS.reduce((all, bit) => all | bit, 0);
const DEBT_OPTIONAL = DEBT_OPTIONAL_BITS.reduce((all, bit) => all | bit, 0);

export function planChunk(staged: StagedRow[], state: MergeState, options: PlanOptions): ChunkPlan {
  const debtors = new Map<string, DebtorInChunk>();
  const debts = new Map<string, DebtInChunk[]>();
  const add = options.mode === 'add';
  /** External ids claimed by debtors this chunk creates (state.externalIdOwners is not copied). */
  const claimed = new Set<string>();
  const plan: ChunkPlan = {
    rows: [],
    created: 0,
    updated: 0,
    errors: 0,
    errorDetails: [],
    refusals: [],
    optOuts: [],
    counts: { newDebtors: 0, updatedDebtors: 0, phoneSets: 0, phoneReplacements: 0, emailSets: 0, emailReplacements: 0, newDebts: 0, updatedDebts: 0, payments: 0 },
  };
  const optOuts = new Set<string>();
  // Per accepted row (parallel to plan.rows): what it fills, its debtor and its debt.
  const present: number[] = [];
  const debtorOfRow: DebtorInChunk[] = [];
  const debtOfRow: (DebtInChunk | undefined)[] = [];

  const debtorOf = (key: string): DebtorInChunk | undefined => {
    let debtor = debtors.get(key);
    if (debtor) return debtor;
    const known = state.debtorsByDocument.get(key);
    if (!known) return undefined;
    debtor = { id: known.id, optOut: known.optOut, isNew: false };
    debtors.set(key, debtor);
    return debtor;
  };
  /** The live debts with an external id, lowest id first, those this chunk creates last. */
  const debtsOf = (ext: string): DebtInChunk[] => {
    let list = debts.get(ext);
    if (list) return list;
    list = (state.debts.get(ext) ?? []).map((k) => ({ id: k.id, debtorId: k.debtorId, currency: k.currency, isNew: false }));
    debts.set(ext, list);
    return list;
  };
  const refuse = (row: StagedRow, column: string, message: string) => {
    plan.errors += 1;
    plan.errorDetails.push(`row ${row.rowNumber}: ${column}: ${message}`);
    plan.refusals.push({ rowNumber: row.rowNumber, column, message });
  };

  for (const row of staged) {
    if (row.errorDetails) {
      plan.errors += 1;
      plan.errorDetails.push(...row.errorDetails);
      continue;
    }
    const key = documentKey(row.documentType, row.documentNumber);
    let debtor = debtorOf(key);
    const ext = row.debtorExternalId;
    if (!debtor && ext !== null) {
      if (!add && (claimed.has(ext) || state.externalIdOwners.has(ext))) {
        refuse(row, options.columns.debtorExternalId, MergeMessages.externalIdInUse(ext));
        continue;
      }
      if (state.erasedExternalIds.has(ext)) {
        refuse(row, options.columns.debtorExternalId, MergeMessages.erased);
        continue;
      }
    }
    // The debtor's own debt with the external id (its lowest id); in update, one only another debtor
    // holds refuses the row, as the debtor batch does.
    const candidates = row.debtExternalId === null ? undefined : debtsOf(row.debtExternalId);
    const owner = debtor;
    let debt = owner && candidates?.find((d) => d.debtorId === owner.id);
    if (!debt && !add && candidates?.length && row.debtExternalId !== null) {
      refuse(row, options.columns.debtExternalId, MergeMessages.debtInUse(row.debtExternalId));
      continue;
    }
    if (debt && row.debtExternalId !== null) {
      if (debt.currency !== row.debtCurrency) {
        refuse(row, options.columns.debtCurrency, MergeMessages.currencyMismatch(row.debtExternalId, debt.currency));
        continue;
      }
    }

    // Accepted: what it writes.
    const creates = !debtor;
    if (!debtor) {
      debtor = { id: row.newDebtorId, optOut: false, isNew: true };
      debtors.set(key, debtor);
      if (ext !== null) claimed.add(ext);
    }
    if (optOutBegins(row.optOut, debtor.optOut)) optOuts.add(debtor.id);
    if (row.optOut !== null) debtor.optOut = row.optOut;
    let debtCreated = false;
    if (candidates && !debt) {
      debt = { id: row.newDebtId ?? '', debtorId: debtor.id, currency: row.debtCurrency ?? '', isNew: true };
      candidates.push(debt);
      debtCreated = true;
    }
    if (row.paymentExternalId !== null) plan.counts.payments += 1;
    plan.rows.push({
      rowNumber: row.rowNumber,
      debtorId: debtor.id,
      debtorNew: debtor.isNew,
      debtId: debt?.id ?? null,
      debtNew: debt?.isNew ?? false,
      // Only the creating row gives the new debtor its external id.
      take: creates && ext !== null ? Bit.externalId : 0,
    });
    present.push(row.present);
    debtorOfRow.push(debtor);
    debtOfRow.push(debt);
    if (debt ? debtCreated : creates) plan.created += 1;
    else plan.updated += 1;
  }

  fold(plan, present, debtorOfRow, debtOfRow);
  plan.optOuts = [...optOuts];
  return plan;
}

/**
 * Marks, for each debtor and each debt of the chunk, the row that provides each field (fold-bits.ts):
 * the last row of the group for the always-present bit, the last row filling it for each optional
 * bit. One pass from the last row back; counts the writes as it meets each group's last row.
 */
function fold(plan: ChunkPlan, present: number[], debtorOfRow: DebtorInChunk[], debtOfRow: (DebtInChunk | undefined)[]): void {
  const c = plan.counts;
  const debtorPending = new Map<DebtorInChunk, number>();
  const debtPending = new Map<DebtInChunk, number>();
  for (let i = plan.rows.length - 1; i >= 0; i -= 1) {
    const row = plan.rows[i];
    const debtor = debtorOfRow[i];
    let pending = debtorPending.get(debtor);
    if (pending === undefined) {
      row.take |= Bit.identity;
      pending = DEBTOR_OPTIONAL;
      if (debtor.isNew) c.newDebtors += 1;
      else c.updatedDebtors += 1;
    }
    const provides = present[i] & pending;
    row.take |= provides;
    debtorPending.set(debtor, pending & ~provides);
    // A new debtor has no phones or emails to remove: only existing ones need the delete.
    if (provides & Bit.phones) {
      c.phoneSets += 1;
      if (!debtor.isNew) c.phoneReplacements += 1;
    }
    if (provides & Bit.emails) {
      c.emailSets += 1;
      if (!debtor.isNew) c.emailReplacements += 1;
    }
    const debt = debtOfRow[i];
    if (!debt) continue;
    let debtLeft = debtPending.get(debt);
    if (debtLeft === undefined) {
      row.take |= Bit.snapshot;
      debtLeft = DEBT_OPTIONAL;
      if (debt.isNew) c.newDebts += 1;
      else c.updatedDebts += 1;
    }
    const fills = present[i] & debtLeft;
    row.take |= fills;
    debtPending.set(debt, debtLeft & ~fills);
  }
}
