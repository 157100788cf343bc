import { Controller } from '@nestjs/common';
import { AuthContext, ByIdInput, DebtListQueryDto, DebtsRpc } from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { DebtsService } from './debts.service';

@Controller()
export class DebtsHandlers {
  constructor(private readonly debts: DebtsService) {}

  @Handles(DebtsRpc.list)
  list(input: DebtListQueryDto, auth: AuthContext) {
    return this.debts.list(auth, input);
  }

  @Handles(DebtsRpc.get)
  async get(input: ByIdInput, auth: AuthContext) {
    return { data: await this.debts.get(auth, input.id) };
  }
}
