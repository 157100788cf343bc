import { Inject, Injectable } from '@nestjs/common';
import { AppError, AuthContext, DebtorBatchInput, DebtorBatchView, ErasureTombstones } from '@dc/contracts';
import type { Logger } from '@dc/observability';
import { LookupsRepository } from '../shared/lookups.repository';
import { LOGGER } from '../tokens';
import { batchKeys, BatchPlan, internalFailure, planBatch, prepareItems } from './batch-plan';
import { DebtorBatchRepository } from './debtor-batch.repository';

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
        const { plan, statements } = await this.repository.transaction(async (tx) => {
          await this.repository.lockKeys(tx, input.portfolioId, keys.debtorExternalIds, keys.debtExternalIds);
          const state = await this.repository.readState(tx, input.portfolioId, keys);
          const decided: BatchPlan = planBatch(items, state, (prefix) => this.repository.newId(prefix));
          await this.repository.write(tx, input.portfolioId, decided.writes);
          return { plan: decided, statements: tx.statements };
        });
        this.logger.debug(
          { portfolioId: input.portfolioId, items: items.length, statements, attempt, sqlMs: Number(process.hrtime.bigint() - started) / 1e6 },
          'debtor batch written',
        );
        return plan.view;
      } catch (err) {
        if (!isConflict(err)) throw err;
        this.logger.warn({ err, attempt }, 'debtor batch conflict');
        if (attempt >= ATTEMPTS) return internalFailure(items);
      }
    }
  }
}

/** Unique violation (a writer outside the batch's locks) or deadlock / serialization failure: retry. */
function isConflict(err: unknown): boolean {
  const text = `${(err as { code?: string })?.code ?? ''} ${(err as Error)?.message ?? ''} ${JSON.stringify((err as { meta?: unknown })?.meta ?? {})}`;
  return /23505|40P01|40001|P2002|P2034|unique constraint|deadlock/i.test(text);
}
