import { Injectable } from '@nestjs/common';
import { AppError, CreateOrganizationDto, OrganizationView, UpdateOrganizationDto } from '@dc/contracts';
import { AuthInvalidator } from '../auth/auth-invalidator';
import { OrganizationsRepository } from './organizations.repository';

function toView(row: { id: string; name: string; status: string; sandbox: boolean; createdAt: Date }): OrganizationView {
  return { id: row.id, name: row.name, status: row.status, sandbox: row.sandbox, createdAt: row.createdAt.toISOString() };
}

/** Operator changes of organizations; a change reaches every gateway's key cache at once. */
@Injectable()
export class OrganizationsService {
  constructor(
    private readonly organizations: OrganizationsRepository,
    private readonly invalidator: AuthInvalidator,
  ) {}

  async create(body: CreateOrganizationDto): Promise<OrganizationView> {
    return toView(await this.organizations.create(body));
  }

  async update(id: string, body: UpdateOrganizationDto): Promise<OrganizationView> {
    if (!(await this.organizations.findById(id))) throw AppError.notFound('organization');
    const row = await this.organizations.update(id, body);
    await this.invalidator.organizationChanged(row.id);
    return toView(row);
  }
}
