import { Controller } from '@nestjs/common';
import { BodyInput, CreateOrganizationDto, OrganizationsRpc, UpdateInput, UpdateOrganizationDto } from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { OrganizationsService } from './organizations.service';

@Controller()
export class OrganizationsHandlers {
  constructor(private readonly organizations: OrganizationsService) {}

  @Handles(OrganizationsRpc.create)
  async create(input: BodyInput<CreateOrganizationDto>) {
    return { data: await this.organizations.create(input.body) };
  }

  @Handles(OrganizationsRpc.update)
  async update(input: UpdateInput<UpdateOrganizationDto>) {
    return { data: await this.organizations.update(input.id, input.body) };
  }
}
