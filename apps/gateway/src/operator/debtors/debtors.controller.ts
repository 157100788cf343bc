import { Controller, Param, UseGuards } from '@nestjs/common';
import { AppError, DebtorsRpc, isId } from '@dc/contracts';
import { OperatorTokenGuard } from '../../auth/operator-token.guard';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, OperatorCaller } from '../../core-client/core-client';
import { OperatorRoute } from '../../routes/operator-route.decorator';

@Controller()
@UseGuards(OperatorTokenGuard)
export class OperatorDebtorsController {
  constructor(private readonly core: CoreClient) {}

  /** Logical deletion (never revived); the debtor's live debts are soft-deleted with it. 204, no body. */
  @OperatorRoute('DELETE', 'debtors/:id', DebtorsRpc.delete)
  delete(@Param('id') id: string, @Caller() caller: OperatorCaller) {
    if (!isId('dbt', id)) throw AppError.notFound('debtor');
    return this.core.send(DebtorsRpc.delete, caller, { id });
  }

  /** Erasure at the data subject's request: personal data wiped everywhere (calls, payments, events), externalId tombstoned (docs/adr/0025). */
  @OperatorRoute('POST', 'debtors/:id/erase', DebtorsRpc.erase)
  erase(@Param('id') id: string, @Caller() caller: OperatorCaller) {
    if (!isId('dbt', id)) throw AppError.notFound('debtor');
    return this.core.send(DebtorsRpc.erase, caller, { id });
  }
}
