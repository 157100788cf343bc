import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateApiKeyDto, RpcPattern, UpdateApiKeyDto } from '@dc/contracts';
import { item } from '../rpc/reply';
import { ApiKeysService } from './api-keys.service';

@Controller()
export class ApiKeysHandlers {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @MessagePattern(RpcPattern.OperatorApiKeyCreate)
  async create(@Payload() input: { organizationId: string; body: CreateApiKeyDto }) {
    return item(await this.apiKeys.create(input.organizationId, input.body), 201);
  }

  @MessagePattern(RpcPattern.OperatorApiKeyUpdate)
  async update(@Payload() input: { id: string; body: UpdateApiKeyDto }) {
    return item(await this.apiKeys.update(input.id, input.body));
  }

  @MessagePattern(RpcPattern.OperatorApiKeyRevoke)
  async revoke(@Payload() input: { id: string }) {
    return item(await this.apiKeys.revoke(input.id));
  }
}
