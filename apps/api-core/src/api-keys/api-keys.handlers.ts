import { Controller } from '@nestjs/common';
import { ApiKeysRpc, ByIdInput, CreateApiKeyDto, UnderOrganizationInput, UpdateApiKeyDto, UpdateInput } from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { ApiKeysService } from './api-keys.service';

@Controller()
export class ApiKeysHandlers {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Handles(ApiKeysRpc.create)
  async create(input: UnderOrganizationInput<CreateApiKeyDto>) {
    return { data: await this.apiKeys.create(input.organizationId, input.body) };
  }

  @Handles(ApiKeysRpc.update)
  async update(input: UpdateInput<UpdateApiKeyDto>) {
    return { data: await this.apiKeys.update(input.id, input.body) };
  }

  @Handles(ApiKeysRpc.revoke)
  async revoke(input: ByIdInput) {
    return { data: await this.apiKeys.revoke(input.id) };
  }
}
