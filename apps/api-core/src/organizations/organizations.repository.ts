import { Injectable } from '@nestjs/common';
import { CreateOrganizationDto, UpdateOrganizationDto } from '@dc/contracts';
import { Database, newId } from '@dc/database';

@Injectable()
export class OrganizationsRepository {
  constructor(private readonly db: Database) {}

  findById(id: string) {
    return this.db.client.organization.findUnique({ where: { id } });
  }

  create(input: CreateOrganizationDto) {
    return this.db.client.organization.create({ data: { id: newId('org'), ...input } });
  }

  update(id: string, input: UpdateOrganizationDto) {
    return this.db.client.organization.update({ where: { id }, data: input });
  }
}
