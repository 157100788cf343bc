import { Module } from '@nestjs/common';
import { DebtorBatchHandlers } from './debtor-batch.handlers';
import { DebtorBatchRepository } from './debtor-batch.repository';
import { WriteDebtorBatchUseCase } from './write-debtor-batch.usecase';

/** POST /v1/portfolios/{id}/debtors (docs/adr/0012). */
@Module({
  controllers: [DebtorBatchHandlers],
  providers: [WriteDebtorBatchUseCase, DebtorBatchRepository],
})
export class DebtorBatchModule {}
