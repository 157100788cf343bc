import { Body, Controller, Param, UseGuards } from '@nestjs/common';
import { ApiKeysRpc, CreateApiKeyDto, UpdateApiKeyDto } from '@dc/contracts';
import { OperatorTokenGuard } from '../../auth/operator-token.guard';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, OperatorCaller } from '../../core-client/core-client';
import { OperatorRoute } from '../../routes/operator-route.decorator';

@Controller()
@UseGuards(OperatorTokenGuard)
export class OperatorApiKeysController {
  constructor(private readonly core: CoreClient) {}

  @OperatorRoute('POST', 'organizations/:id/api-keys', ApiKeysRpc.create)
  create(@Param('id') organizationId: string, @Body() body: CreateApiKeyDto, @Caller() caller: OperatorCaller) {
    return this.core.send(ApiKeysRpc.create, caller, { organizationId, body });
  }

  @OperatorRoute('PATCH', 'api-keys/:id', ApiKeysRpc.update)
  update(@Param('id') id: string, @Body() body: UpdateApiKeyDto, @Caller() caller: OperatorCaller) {
    return this.core.send(ApiKeysRpc.update, caller, { id, body });
  }

  @OperatorRoute('POST', 'api-keys/:id/revoke', ApiKeysRpc.revoke)
  revoke(@Param('id') id: string, @Caller() caller: OperatorCaller) {
    return this.core.send(ApiKeysRpc.revoke, caller, { id });
  }
}
