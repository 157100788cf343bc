import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DebtorBatchInput, PublicRequest, RpcPattern } from '@dc/contracts';
import { item } from '../rpc/reply';
import { WriteDebtorBatchUseCase } from './write-debtor-batch.usecase';

@Controller()
export class DebtorBatchHandlers {
  constructor(private readonly writeBatch: WriteDebtorBatchUseCase) {}

  @MessagePattern(RpcPattern.DebtorBatchWrite)
  async write(@Payload() { auth, input }: PublicRequest<DebtorBatchInput>) {
    return item(await this.writeBatch.execute(auth, input));
  }
}
