import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AppError, cursorAfter, DebtListQueryDto, PublicRequest, RpcPattern, toPage } from '@dc/contracts';
import { item, ok } from '../rpc/reply';
import { toDebtView } from './debt.mapper';
import { DebtsRepository } from './debts.repository';

@Controller()
export class DebtsHandlers {
  constructor(private readonly debts: DebtsRepository) {}

  @MessagePattern(RpcPattern.DebtsList)
  async list(@Payload() { auth, input }: PublicRequest<DebtListQueryDto>) {
    const filter = { portfolioId: input.portfolioId, debtorId: input.debtorId, status: input.status };
    const rows = await this.debts.listReadable(auth, filter, cursorAfter(input.cursor), input.limit + 1);
    return ok(toPage(rows, input.limit, toDebtView));
  }

  @MessagePattern(RpcPattern.DebtsGet)
  async get(@Payload() { auth, input }: PublicRequest<{ id: string }>) {
    const row = await this.debts.findReadable(auth, input.id);
    if (!row) throw AppError.notFound('debt');
    return item(toDebtView(row));
  }
}
