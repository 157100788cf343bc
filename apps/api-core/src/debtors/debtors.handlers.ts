import { Controller } from '@nestjs/common';
import { AppError, AuthContext, cursorAfter, DebtorListQueryDto, DebtorsRpc, toPage } from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { toDebtorView } from './debtor.mapper';
import { DebtorsRepository } from './debtors.repository';

@Controller()
export class DebtorsHandlers {
  constructor(private readonly debtors: DebtorsRepository) {}

  @Handles(DebtorsRpc.list)
  async list(input: DebtorListQueryDto, auth: AuthContext) {
    const filter = { portfolioId: input.portfolioId, status: input.status };
    const rows = await this.debtors.listReadable(auth, filter, cursorAfter(input.cursor), input.limit + 1);
    return toPage(rows, input.limit, toDebtorView);
  }

  @Handles(DebtorsRpc.get)
  async get(input: { id: string }, auth: AuthContext) {
    const row = await this.debtors.findReadable(auth, input.id);
    if (!row) throw AppError.notFound('debtor');
    return { data: toDebtorView(row) };
  }

  @Handles(DebtorsRpc.delete)
  async delete(input: { id: string }) {
    if (!(await this.debtors.softDelete(input.id))) throw AppError.notFound('debtor');
  }

  @Handles(DebtorsRpc.erase)
  async erase(input: { id: string }) {
    const erased = await this.debtors.erase(input.id);
    if (!erased) throw AppError.notFound('debtor');
    return { data: { id: erased.id, erasedAt: erased.erasedAt.toISOString() } };
  }
}
