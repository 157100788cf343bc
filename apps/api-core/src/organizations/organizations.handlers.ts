import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AppError, CreateOrganizationDto, OrganizationView, RpcPattern, UpdateOrganizationDto } from '@dc/contracts';
import { AuthInvalidator } from '../auth/auth-invalidator';
import { item } from '../rpc/reply';
import { OrganizationsRepository } from './organizations.repository';

function toView(row: { id: string; name: string; status: string; sandbox: boolean; createdAt: Date }): OrganizationView {
  return { id: row.id, name: row.name, status: row.status, sandbox: row.sandbox, createdAt: row.createdAt.toISOString() };
}

@Controller()
export class OrganizationsHandlers {
  constructor(
    private readonly organizations: OrganizationsRepository,
    private readonly invalidator: AuthInvalidator,
  ) {}

  @MessagePattern(RpcPattern.OperatorOrganizationCreate)
  async create(@Payload() input: { body: CreateOrganizationDto }) {
    return item(toView(await this.organizations.create(input.body)), 201);
  }

  @MessagePattern(RpcPattern.OperatorOrganizationUpdate)
  async update(@Payload() input: { id: string; body: UpdateOrganizationDto }) {
    if (!(await this.organizations.findById(input.id))) throw AppError.notFound('organization');
    const row = await this.organizations.update(input.id, input.body);
    this.invalidator.organizationChanged(row.id);
    return item(toView(row));
  }
}
