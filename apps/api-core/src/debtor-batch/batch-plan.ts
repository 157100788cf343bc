import {
  BatchDebtorDto, DebtorBatchReason, DebtorBatchResult, DebtorBatchView, ErasureTombstones, isIso4217, normalisePhone, parseAmount, PhoneOwner,
} from '@dc/contracts';
import { optOutBegins } from '@dc/debtor-writes';

/**
 * Pure per-item decisions of the debtor batch (docs/adr/0012). No I/O: the use case reads the
 * state under advisory locks, this module decides every item in memory, and the repository
 * writes the accepted items with a fixed number of set-based statements.
 */

export interface PreparedPhone {
  phone: string;
  e164: string;
  primary: boolean;
  type: string | null;
  owner: PhoneOwner | null;
}

export interface PreparedEmail {
  address: string;
  primary: boolean;
  type: string | null;
}

export interface PreparedDebt {
  externalId: string;
  totalAmount: string;
  paidAmount: string;
  /** Paid in full: the status the write derives from the amounts (debtStatusSql, libs/debtor-writes). */
  paid: boolean;
  currency: string;
  dueDate: string | null;
  issueDate: string | null;
  description: string | null;
  debtType: string | null;
}

export interface Rejection {
  code: DebtorBatchReason;
  message: string;
  path: string;
}

export interface PreparedItem {
  index: number;
  externalId: string;
  dto: BatchDebtorDto;
  /** null: phones untouched (absent or empty list). */
  phones: PreparedPhone[] | null;
  /** null: emails untouched (absent); [] deletes all. */
  emails: PreparedEmail[] | null;
  debts: PreparedDebt[];
  rejection?: Rejection;
}

const reject = (code: DebtorBatchReason, message: string, path: string): Rejection => ({ code, message, path });

/** Stage 1: checks that need no stored state. Later duplicates of a debtor externalId are rejected. */
export function prepareItems(debtors: BatchDebtorDto[]): PreparedItem[] {
  const seen = new Map<string, number>();
  return debtors.map((dto, index) => {
    const base = `debtors[${index}]`;
    const item: PreparedItem = { index, externalId: dto.externalId, dto, phones: null, emails: null, debts: [] };
    const first = seen.get(dto.externalId);
    if (first !== undefined) {
      item.rejection = reject(
        DebtorBatchReason.DuplicateInBatch,
        `externalId ${dto.externalId} already appears at debtors[${first}] of this batch; only the first is processed.`,
        `${base}.externalId`,
      );
      return item;
    }
    seen.set(dto.externalId, index);
    item.rejection = prepareContacts(item, base) ?? prepareDebts(item, base);
    return item;
  });
}

function prepareContacts(item: PreparedItem, base: string): Rejection | undefined {
  const { dto } = item;
  if (dto.contactInfoPhoneNumbers?.length) {
    const phones: PreparedPhone[] = [];
    const numbers = new Map<string, number>();
    for (const [i, p] of dto.contactInfoPhoneNumbers.entries()) {
      const path = `${base}.contactInfoPhoneNumbers[${i}].phone`;
      const e164 = normalisePhone(p.phone);
      if (!e164) {
        return reject(DebtorBatchReason.InvalidPhone, `${p.phone} is not an E.164 number (+, country code, 9 to 15 digits in total).`, path);
      }
      const earlier = numbers.get(e164);
      if (earlier !== undefined) {
        return reject(DebtorBatchReason.InvalidPhone, `${p.phone} is the same number as contactInfoPhoneNumbers[${earlier}].`, path);
      }
      numbers.set(e164, i);
      phones.push({ phone: p.phone, e164, primary: p.primary ?? false, type: p.type ?? null, owner: p.owner ?? null });
    }
    item.phones = phones;
  }
  if (dto.contactInfoEmails) {
    item.emails = dto.contactInfoEmails.map((e) => ({ address: e.address, primary: e.primary ?? false, type: e.type ?? null }));
  }
  return undefined;
}

function prepareDebts(item: PreparedItem, base: string): Rejection | undefined {
  const seen = new Set<string>();
  for (const [i, d] of (item.dto.debts ?? []).entries()) {
    const path = `${base}.debts[${i}]`;
    if (seen.has(d.externalId)) {
      return reject(DebtorBatchReason.DebtDuplicateInItem, `Debt externalId ${d.externalId} appears more than once in this debtor.`, `${path}.externalId`);
    }
    seen.add(d.externalId);
    const total = parseAmount(d.totalAmount);
    if (!total || total.scaled === 0n) {
      return reject(DebtorBatchReason.InvalidAmount, 'totalAmount must be above 0 with at most 4 decimals and 15 integer digits.', `${path}.totalAmount`);
    }
    const paid = parseAmount(d.paidAmount ?? 0);
    if (!paid) {
      return reject(DebtorBatchReason.InvalidAmount, 'paidAmount must be 0 or more with at most 4 decimals and 15 integer digits.', `${path}.paidAmount`);
    }
    if (paid.scaled > total.scaled) {
      return reject(DebtorBatchReason.InvalidAmount, `paidAmount (${paid.text}) is greater than totalAmount (${total.text}).`, `${path}.paidAmount`);
    }
    if (!isIso4217(d.currency)) {
      return reject(DebtorBatchReason.DebtCurrencyInvalid, `${d.currency} is not an ISO 4217 currency code.`, `${path}.currency`);
    }
    item.debts.push({
      externalId: d.externalId,
      totalAmount: total.text,
      paidAmount: paid.text,
      paid: paid.scaled === total.scaled,
      currency: d.currency,
      dueDate: d.dueDate ?? null,
      issueDate: d.issueDate ?? null,
      description: d.description ?? null,
      debtType: d.debtType ?? null,
    });
  }
  return undefined;
}

/**
 * The keys to lock and read: the debtor externalIds of every item (a rejected item of an existing
 * debtor still answers that debtor's id) and the debt externalIds of the items that passed stage 1;
 * and every tombstone value that would refuse one of the debtor externalIds (docs/adr/0025).
 */
export function batchKeys(items: PreparedItem[], tombstones: ErasureTombstones): { debtorExternalIds: string[]; debtExternalIds: string[]; erasureHashes: string[] } {
  const live = items.filter((i) => !i.rejection);
  const debtorExternalIds = [...new Set(items.map((i) => i.externalId))];
  return {
    debtorExternalIds,
    debtExternalIds: [...new Set(live.flatMap((i) => i.debts.map((d) => d.externalId)))],
    erasureHashes: tombstones.candidatesOf(debtorExternalIds),
  };
}

export interface ExistingDebtor {
  id: string;
  externalId: string;
  complianceOptOut: boolean;
}

export interface ExistingDebt {
  id: string;
  externalId: string;
  debtorId: string;
  currency: string;
}

export interface BatchState {
  /** The live debtor of the portfolio each externalId matches: the oldest when several share it (batchState). */
  debtors: Map<string, ExistingDebtor>;
  /** The batch's debtor externalIds that a tombstone of the portfolio refuses (ErasureTombstones.isErased). */
  erasedExternalIds: Set<string>;
  /** Every live debt of the portfolio with each externalId, in id order. */
  debts: Map<string, ExistingDebt[]>;
}

/**
 * The state from the live rows read, each list in id order (ids are time-ordered ULIDs). A CSV load
 * in mode add always creates, so several live debtors may share an externalId, and several live
 * debts too (docs/adr/0041): an item matches the oldest debtor, the first of its externalId, and
 * the others are untouched; every debt of an externalId is kept, so that the matched debtor's is
 * updated and one of another debtor refuses the item (debtOf, decide).
 */
export function batchState(debtors: ExistingDebtor[], erasedExternalIds: Set<string>, debts: ExistingDebt[]): BatchState {
  const state: BatchState = { debtors: new Map(), erasedExternalIds, debts: new Map() };
  for (const d of debtors) if (!state.debtors.has(d.externalId)) state.debtors.set(d.externalId, d);
  for (const d of debts) {
    const same = state.debts.get(d.externalId);
    if (same) same.push(d);
    else state.debts.set(d.externalId, [d]);
  }
  return state;
}

/** The live debt an item's debt updates: its matched debtor's with that externalId, the lowest id if several. */
const debtOf = (state: BatchState, debtorId: string | undefined, externalId: string): ExistingDebt | undefined =>
  debtorId === undefined ? undefined : state.debts.get(externalId)?.find((d) => d.debtorId === debtorId);

export interface DebtorWrite {
  id: string;
  dto: BatchDebtorDto;
}

/** The prepared debt is referenced, not copied: `{ ...debt, id }` costs V8 about 2 µs an object. */
export interface DebtWrite {
  id: string;
  debtorId: string;
  debt: PreparedDebt;
}

export interface BatchWrites {
  newDebtors: DebtorWrite[];
  updatedDebtors: DebtorWrite[];
  phoneSets: { debtorId: string; phones: PreparedPhone[] }[];
  emailSets: { debtorId: string; emails: PreparedEmail[] }[];
  newDebts: DebtWrite[];
  updatedDebts: DebtWrite[];
  /** Debtors whose complianceOptOut becomes true now (note, timeline entry, pending messages cancelled). */
  optOuts: string[];
}

export interface BatchPlan {
  view: DebtorBatchView;
  writes: BatchWrites;
}

/**
 * Stage 2: decide each prepared item against the stored state, in batch order. Only accepted
 * items claim new debt externalIds, so a rejected item never affects another.
 */
export function planBatch(items: PreparedItem[], state: BatchState, newId: (prefix: 'dbt' | 'debt') => string): BatchPlan {
  const writes: BatchWrites = { newDebtors: [], updatedDebtors: [], phoneSets: [], emailSets: [], newDebts: [], updatedDebts: [], optOuts: [] };
  const claimed = new Map<string, number>();
  const results: DebtorBatchResult[] = items.map((item) => {
    const existing = state.debtors.get(item.externalId);
    const rejection = item.rejection ?? decide(item, existing, state, claimed);
    if (rejection) {
      return { index: item.index, externalId: item.externalId, status: 'rejected', id: existing?.id ?? null, debts: [], reason: rejection };
    }
    const debtorId = existing?.id ?? newId('dbt');
    (existing ? writes.updatedDebtors : writes.newDebtors).push({ id: debtorId, dto: item.dto });
    if (item.phones) writes.phoneSets.push({ debtorId, phones: item.phones });
    if (item.emails) writes.emailSets.push({ debtorId, emails: item.emails });
    if (optOutBegins(item.dto.complianceOptOut, existing?.complianceOptOut)) writes.optOuts.push(debtorId);
    const debts = item.debts.map((debt) => {
      const stored = debtOf(state, existing?.id, debt.externalId);
      if (stored) {
        writes.updatedDebts.push({ id: stored.id, debtorId, debt });
        return { externalId: debt.externalId, id: stored.id, status: 'updated' as const };
      }
      claimed.set(debt.externalId, item.index);
      const id = newId('debt');
      writes.newDebts.push({ id, debtorId, debt });
      return { externalId: debt.externalId, id, status: 'created' as const };
    });
    return { index: item.index, externalId: item.externalId, status: existing ? 'updated' : 'created', id: debtorId, debts };
  });
  const count = (s: string) => results.filter((r) => r.status === s).length;
  return {
    view: { results, summary: { created: count('created'), received: items.length, rejected: count('rejected'), updated: count('updated') } },
    writes,
  };
}

function decide(item: PreparedItem, existing: ExistingDebtor | undefined, state: BatchState, claimed: Map<string, number>): Rejection | undefined {
  const base = `debtors[${item.index}]`;
  if (!existing && state.erasedExternalIds.has(item.externalId)) {
    return reject(DebtorBatchReason.ErasedSubject, 'This debtor was erased at the data subject\'s request and cannot be recreated.', `${base}.externalId`);
  }
  for (const [i, debt] of item.debts.entries()) {
    const path = `${base}.debts[${i}]`;
    const stored = debtOf(state, existing?.id, debt.externalId);
    if (stored) {
      if (stored.currency !== debt.currency) {
        return reject(DebtorBatchReason.DebtCurrencyMismatch, `Debt ${debt.externalId} is in ${stored.currency}; the currency of a debt never changes.`, `${path}.currency`);
      }
    } else if (state.debts.has(debt.externalId)) {
      return reject(DebtorBatchReason.DebtExternalIdInUse, `Debt externalId ${debt.externalId} belongs to another debtor of this portfolio.`, `${path}.externalId`);
    } else {
      const other = claimed.get(debt.externalId);
      if (other !== undefined) {
        return reject(DebtorBatchReason.DebtDuplicateInBatch, `Debt externalId ${debt.externalId} is also declared as new by debtors[${other}] of this batch.`, `${path}.externalId`);
      }
    }
  }
  return undefined;
}

/**
 * When the batch transaction keeps failing on write conflicts (a writer outside the batch's locks),
 * nothing was written: items that passed the stage-1 checks are reported as `internal`.
 */
export function internalFailure(items: PreparedItem[]): DebtorBatchView {
  const results: DebtorBatchResult[] = items.map((i) => ({
    index: i.index,
    externalId: i.externalId,
    status: 'rejected',
    id: null,
    debts: [],
    reason: i.rejection ?? reject(DebtorBatchReason.Internal, 'The item could not be written; nothing of it was stored. Retry it.', `debtors[${i.index}]`),
  }));
  return { results, summary: { created: 0, received: items.length, rejected: items.length, updated: 0 } };
}
