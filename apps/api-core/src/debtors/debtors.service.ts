import { Inject, Injectable } from '@nestjs/common';
import { AppError, AuthContext, DebtorErasureView, DebtorListQueryDto, DebtorView, ErasureTombstones, ItemBody, JsonBytes, jsonItemBytes, jsonListBytes, ListBody } from '@dc/contracts';
import type { Transactions } from '@dc/database';
import { TRANSACTIONS } from '../tokens';
import { DebtorsRepository } from './debtors.repository';

/** Debtor reads, deletion and erasure (docs/adr/0011); the SQL is DebtorsRepository's. */
@Injectable()
export class DebtorsService {
  constructor(
    private readonly debtors: DebtorsRepository,
    private readonly tombstones: ErasureTombstones,
    @Inject(TRANSACTIONS) private readonly transactions: Transactions,
  ) {}

  /** A page's JSON, built from the bytes of the rows Postgres serialised (never parsed or decoded here: docs/adr/0024, 0038). */
  async list(auth: AuthContext, query: DebtorListQueryDto): Promise<JsonBytes<ListBody<DebtorView>>> {
    const filter = { portfolioId: query.portfolioId, status: query.status };
    const rows = await this.debtors.listReachable(auth, filter, query.cursor ?? null, query.limit + 1);
    return new JsonBytes(jsonListBytes(rows, query.limit));
  }

  async get(auth: AuthContext, id: string): Promise<JsonBytes<ItemBody<DebtorView>>> {
    const debtor = await this.debtors.findReachable(auth, id);
    if (!debtor) throw AppError.notFound('debtor');
    return new JsonBytes(jsonItemBytes(debtor));
  }

  /**
   * Logical deletion (never revived). The debtor's live debts are soft-deleted with it so their
   * externalIds are free for a new debtor; pending messages are cancelled. Repeats keep the first
   * deletion time; unknown ids are 404.
   */
  async delete(id: string): Promise<void> {
    const found = await this.transactions.transaction(async (tx) => {
      if (!(await this.debtors.lock(tx, id))) return false;
      await this.debtors.markDeleted(tx, id);
      await this.debtors.retireDependants(tx, id);
      return true;
    });
    if (!found) throw AppError.notFound('debtor');
  }

  /**
   * Erasure at the data subject's request, in one transaction with the debtor locked and a fixed
   * number of statements (docs/adr/0025): the externalId's tombstone recorded (an HMAC only),
   * contacts deleted, notes and timeline bodies and debt descriptions emptied, debts soft-deleted
   * and pending messages cancelled, call numbers and analysis, payment references and the same
   * fields in the debtor's outbox events nulled, then every personal column nulled and the debtor
   * marked erased (and deleted). Amounts, currencies and dates of debts, calls, payments and
   * promises stay as records. Idempotent: a second call returns the first erasedAt.
   */
  async erase(id: string): Promise<DebtorErasureView> {
    const erasedAt = await this.transactions.transaction(async (tx) => {
      const debtor = await this.debtors.lock(tx, id);
      if (!debtor) return null;
      if (debtor.erasedAt) return debtor.erasedAt;
      if (debtor.externalId !== null) await this.debtors.recordErasure(tx, debtor.portfolioId, this.tombstones.tombstone(debtor.externalId));
      await this.debtors.deleteContacts(tx, id);
      await this.debtors.emptyFreeText(tx, id);
      await this.debtors.retireDependants(tx, id);
      await this.debtors.scrubActivity(tx, id);
      return this.debtors.wipePersonalData(tx, id);
    });
    if (!erasedAt) throw AppError.notFound('debtor');
    return { id, erasedAt: erasedAt.toISOString() };
  }
}
