import { Controller } from '@nestjs/common';
import {
  AuthContext, CreatePromiseDto, FulfilPromiseDto, ListPromisesQueryDto, PromisesRpc, SetPromiseStatusDto, UnderPortfolioInput, UpdateInput,
} from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { PromisesService } from './promises.service';

@Controller()
export class PromisesHandlers {
  constructor(private readonly promises: PromisesService) {}

  @Handles(PromisesRpc.list)
  list(input: ListPromisesQueryDto, auth: AuthContext) {
    return this.promises.list(auth, input);
  }

  @Handles(PromisesRpc.create)
  async create(input: UnderPortfolioInput<CreatePromiseDto>) {
    return { data: await this.promises.create(input.portfolioId, input.body) };
  }

  @Handles(PromisesRpc.setStatus)
  async setStatus(input: UpdateInput<SetPromiseStatusDto>) {
    return { data: await this.promises.setStatus(input.id, input.body) };
  }

  @Handles(PromisesRpc.fulfil)
  async fulfil(input: UpdateInput<FulfilPromiseDto>) {
    return { data: await this.promises.fulfil(input.id, input.body) };
  }
}
