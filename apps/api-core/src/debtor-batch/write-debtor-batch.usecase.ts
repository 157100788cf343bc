import { Inject, Injectable } from '@nestjs/common';
import { AppError, AuthContext, DebtorBatchInput, DebtorBatchView, ErasureTombstones } from '@dc/contracts';
import type { Logger } from '@dc/observability';
import { LookupsRepository } from '../shared/lookups.repository';
import { LOGGER } from '../tokens';
import { batchKeys, BatchPlan, internalFailure, planBatch, PreparedItem, prepareItems } from './batch-plan';
import { BatchTx, DebtorBatchRepository } from './debtor-batch.repository';

const ATTEMPTS = 3;

/**
 * POST /v1/portfolios/{id}/debtors: one transaction per batch. Stage-1 checks in memory, then
 * advisory locks on every debtor and debt key, one bulk read, in-memory decisions, and a fixed
 * number of set-based writes. A rejected item is never written, so nothing of it is left behind.
 */
@Injectable()
export class WriteDebtorBatchUseCase {
  constructor(
    private readonly lookups: LookupsRepository,
    private readonly repository: DebtorBatchRepository,
    private readonly tombstones: ErasureTombstones,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute(auth: AuthContext, input: DebtorBatchInput): Promise<DebtorBatchView> {
    if (!(await this.lookups.findReachablePortfolio(auth, input.portfolioId))) throw AppError.notFound('portfolio');
    const items = prepareItems(input.debtors);
    const keys = batchKeys(items, this.tombstones);
    const started = process.hrtime.bigint();
    for (let attempt = 1; ; attempt += 1) {
      try {
        // The key's next read shows the batch wherever it runs (docs/adr/0050).
        const { plan, statements } = await this.repository.transaction(async (tx) => {
          const decided = await writeBatchIn(this.repository, tx, input.portfolioId, items, keys);
          return { plan: decided, statements: tx.statements };
        }, auth.apiKeyId);
        this.logger.debug(
          { portfolioId: input.portfolioId, items: items.length, statements, attempt, sqlMs: Number(process.hrtime.bigint() - started) / 1e6 },
          'debtor batch written',
        );
        return plan.view;
      } catch (err) {
        // A deadlock, a serialization failure, or a natural key claimed first by a writer outside the
        // batch's locks: the attempt was rolled back, and the next one sees the other's rows.
        if (!this.repository.isConflict(err)) throw err;
        this.logger.warn({ err, attempt }, 'debtor batch conflict');
        if (attempt >= ATTEMPTS) return internalFailure(items);
      }
    }
  }
}

/** One attempt of a batch in its transaction: the key locks, the bulk read, the decisions, the writes. */
export async function writeBatchIn(
  repository: DebtorBatchRepository,
  tx: BatchTx,
  portfolioId: string,
  items: PreparedItem[],
  keys: ReturnType<typeof batchKeys>,
): Promise<BatchPlan> {
  await repository.lockKeys(tx, portfolioId, keys.debtorExternalIds, keys.debtExternalIds);
  const state = await repository.readState(tx, portfolioId, keys);
  const plan = planBatch(items, state, (prefix) => repository.newId(prefix));
  await repository.write(tx, portfolioId, plan.writes);
  return plan;
}
