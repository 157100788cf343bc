import { Controller } from '@nestjs/common';
import { AuthContext, ByIdInput, DebtorListQueryDto, DebtorsRpc } from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { DebtorsService } from './debtors.service';

@Controller()
export class DebtorsHandlers {
  constructor(private readonly debtors: DebtorsService) {}

  @Handles(DebtorsRpc.list)
  list(input: DebtorListQueryDto, auth: AuthContext) {
    return this.debtors.list(auth, input);
  }

  @Handles(DebtorsRpc.get)
  get(input: ByIdInput, auth: AuthContext) {
    return this.debtors.get(auth, input.id);
  }

  @Handles(DebtorsRpc.delete)
  delete(input: ByIdInput) {
    return this.debtors.delete(input.id);
  }

  @Handles(DebtorsRpc.erase)
  async erase(input: ByIdInput) {
    return { data: await this.debtors.erase(input.id) };
  }
}
