import { Body, Controller, Param, UseGuards } from '@nestjs/common';
import { CreateOrganizationDto, OrganizationsRpc, UpdateOrganizationDto } from '@dc/contracts';
import { OperatorTokenGuard } from '../../auth/operator-token.guard';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, OperatorCaller } from '../../core-client/core-client';
import { OperatorRoute } from '../../routes/operator-route.decorator';

@Controller()
@UseGuards(OperatorTokenGuard)
export class OperatorOrganizationsController {
  constructor(private readonly core: CoreClient) {}

  @OperatorRoute('POST', 'organizations', OrganizationsRpc.create)
  create(@Body() body: CreateOrganizationDto, @Caller() caller: OperatorCaller) {
    return this.core.send(OrganizationsRpc.create, caller, { body });
  }

  @OperatorRoute('PATCH', 'organizations/:id', OrganizationsRpc.update)
  update(@Param('id') id: string, @Body() body: UpdateOrganizationDto, @Caller() caller: OperatorCaller) {
    return this.core.send(OrganizationsRpc.update, caller, { id, body });
  }
}
