import type { ItemBody } from '../pagination';
import { ByIdInput, operatorRpc, UnderOrganizationInput, UpdateInput } from '../rpc/contract';
import type { ApiKeyView, CreateApiKeyDto, CreatedApiKeyView, UpdateApiKeyDto } from './api-key.dto';

export const ApiKeysRpc = {
  create: operatorRpc<UnderOrganizationInput<CreateApiKeyDto>, ItemBody<CreatedApiKeyView>>('operator.api-keys.create', { status: 201 }),
  update: operatorRpc<UpdateInput<UpdateApiKeyDto>, ItemBody<ApiKeyView>>('operator.api-keys.update'),
  revoke: operatorRpc<ByIdInput, ItemBody<ApiKeyView>>('operator.api-keys.revoke'),
} as const;
