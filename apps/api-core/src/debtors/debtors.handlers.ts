import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AppError, cursorAfter, DebtorErasureView, DebtorListQueryDto, PublicRequest, RpcPattern, toPage } from '@dc/contracts';
import { item, ok } from '../rpc/reply';
import { toDebtorView } from './debtor.mapper';
import { DebtorsRepository } from './debtors.repository';

@Controller()
export class DebtorsHandlers {
  constructor(private readonly debtors: DebtorsRepository) {}

  @MessagePattern(RpcPattern.DebtorsList)
  async list(@Payload() { auth, input }: PublicRequest<DebtorListQueryDto>) {
    const filter = { portfolioId: input.portfolioId, status: input.status };
    const rows = await this.debtors.listReadable(auth, filter, cursorAfter(input.cursor), input.limit + 1);
    return ok(toPage(rows, input.limit, toDebtorView));
  }

  @MessagePattern(RpcPattern.DebtorsGet)
  async get(@Payload() { auth, input }: PublicRequest<{ id: string }>) {
    const row = await this.debtors.findReadable(auth, input.id);
    if (!row) throw AppError.notFound('debtor');
    return item(toDebtorView(row));
  }

  @MessagePattern(RpcPattern.OperatorDebtorDelete)
  async delete(@Payload() input: { id: string }) {
    if (!(await this.debtors.softDelete(input.id))) throw AppError.notFound('debtor');
    return ok(undefined, 204);
  }

  @MessagePattern(RpcPattern.OperatorDebtorErase)
  async erase(@Payload() input: { id: string }) {
    const erased = await this.debtors.erase(input.id);
    if (!erased) throw AppError.notFound('debtor');
    const view: DebtorErasureView = { id: erased.id, erasedAt: erased.erasedAt.toISOString() };
    return item(view);
  }
}
