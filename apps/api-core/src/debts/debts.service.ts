import { Injectable } from '@nestjs/common';
import { AppError, AuthContext, DebtListQueryDto, DebtView, ListBody } from '@dc/contracts';
import { pageOf } from '../shared/page';
import { DebtsRepository } from './debts.repository';

@Injectable()
export class DebtsService {
  constructor(private readonly debts: DebtsRepository) {}

  async list(auth: AuthContext, query: DebtListQueryDto): Promise<ListBody<DebtView>> {
    const filter = { portfolioId: query.portfolioId, debtorId: query.debtorId, status: query.status };
    const { rows, resumeAfter } = await this.debts.listReachable(auth, filter, query.cursor ?? null, query.limit + 1);
    return pageOf(rows, query.limit, resumeAfter);
  }

  async get(auth: AuthContext, id: string): Promise<DebtView> {
    const debt = await this.debts.findReachable(auth, id);
    if (!debt) throw AppError.notFound('debt');
    return debt;
  }
}
