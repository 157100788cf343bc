import { Controller } from '@nestjs/common';
import { AuthContext, ByIdInput, CallsRpc, CreateCallDto, ListCallsQueryDto, UnderPortfolioInput, UpdateCallDto, UpdateInput } from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { CallsService } from './calls.service';

@Controller()
export class CallsHandlers {
  constructor(private readonly calls: CallsService) {}

  @Handles(CallsRpc.list)
  list(input: ListCallsQueryDto, auth: AuthContext) {
    return this.calls.list(auth, input);
  }

  @Handles(CallsRpc.get)
  async get(input: ByIdInput, auth: AuthContext) {
    return { data: await this.calls.get(auth, input.id) };
  }

  @Handles(CallsRpc.create)
  async create(input: UnderPortfolioInput<CreateCallDto>) {
    return { data: await this.calls.create(input.portfolioId, input.body) };
  }

  @Handles(CallsRpc.update)
  async update(input: UpdateInput<UpdateCallDto>) {
    return { data: await this.calls.update(input.id, input.body) };
  }
}
