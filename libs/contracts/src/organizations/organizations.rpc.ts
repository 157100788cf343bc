import type { ItemBody } from '../pagination';
import { BodyInput, operatorRpc, UpdateInput } from '../rpc/contract';
import type { CreateOrganizationDto, OrganizationView, UpdateOrganizationDto } from './organization.dto';

export const OrganizationsRpc = {
  create: operatorRpc<BodyInput<CreateOrganizationDto>, ItemBody<OrganizationView>>('operator.organizations.create', { status: 201 }),
  update: operatorRpc<UpdateInput<UpdateOrganizationDto>, ItemBody<OrganizationView>>('operator.organizations.update'),
} as const;
