import { Controller } from '@nestjs/common';
import { AuthContext, DebtorBatchInput, DebtorsRpc } from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { WriteDebtorBatchUseCase } from './write-debtor-batch.usecase';

@Controller()
export class DebtorBatchHandlers {
  constructor(private readonly writeBatch: WriteDebtorBatchUseCase) {}

  @Handles(DebtorsRpc.batchWrite)
  async write(input: DebtorBatchInput, auth: AuthContext) {
    return { data: await this.writeBatch.execute(auth, input) };
  }
}
