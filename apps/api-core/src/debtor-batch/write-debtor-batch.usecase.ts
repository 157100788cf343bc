import { Inject, Injectable } from '@nestjs/common';
import { AppError, AuthContext, BatchDebtorDto, DebtorBatchInput, DebtorBatchView, ErrorCode } from '@dc/contracts';
import { PayloadStore } from '@dc/transport';
import { newId } from '@dc/database';
import type { Logger } from '@dc/observability';
import { gunzipSync } from 'node:zlib';
import { PortfoliosRepository } from '../portfolios/portfolios.repository';
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
    private readonly portfolios: PortfoliosRepository,
    private readonly repository: DebtorBatchRepository,
    private readonly payloads: PayloadStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The debtors as sent by the gateway: inline, gzipped inline, or gzipped behind a claim check. */
  private async decode(input: DebtorBatchInput): Promise<BatchDebtorDto[]> {
    if (input.debtors) return input.debtors;
    const gzip = input.debtorsRef ? await this.payloads.take(input.debtorsRef) : Buffer.from(input.debtorsGzip ?? '', 'base64');
    if (!gzip) throw new AppError(ErrorCode.ServiceUnavailable, 'The batch could not be read back in time. Retry the request.');
    return JSON.parse(gunzipSync(gzip).toString('utf8')) as BatchDebtorDto[];
  }

  async execute(auth: AuthContext, input: DebtorBatchInput): Promise<DebtorBatchView> {
    if (!(await this.portfolios.findReachable(auth, input.portfolioId))) throw AppError.notFound('portfolio');
    const debtors = await this.decode(input);
    const items = prepareItems(debtors);
    const keys = batchKeys(items);
    const started = process.hrtime.bigint();
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { plan, statements } = await this.repository.transaction(async (tx) => {
          await this.repository.lockKeys(tx, input.portfolioId, keys.debtorExternalIds, keys.debtExternalIds);
          const state = await this.repository.readState(tx, input.portfolioId, keys);
          const decided: BatchPlan = planBatch(items, state, (prefix) => newId(prefix));
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
