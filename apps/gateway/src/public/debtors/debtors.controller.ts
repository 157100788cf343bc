import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { AppError, DebtorListQueryDto, DebtorView, isId, ItemBody, ListBody, RpcPattern } from '@dc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequiresScope } from '../../auth/requires-scope.decorator';
import { CoreClient } from '../../core-client/core-client';
import { ApiDoc } from '../../openapi/api-doc.decorator';

@Controller('debtors')
export class DebtorsController {
  constructor(private readonly core: CoreClient) {}

  @Get()
  @RequiresScope('read')
  @ApiDoc({ summary: 'List debtors', description: 'Filters: portfolioId; status (one or several, comma-separated). Deleted and erased debtors are never listed.', returns: 'DebtorView', list: true })
  list(@Query() query: DebtorListQueryDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ListBody<DebtorView>> {
    return this.core.forward(req, res, RpcPattern.DebtorsList, query);
  }

  @Get(':id')
  @RequiresScope('read')
  @ApiDoc({ summary: 'One debtor', description: 'With phones (owner, ownerSource, verification), emails and compliance flags.', returns: 'DebtorView' })
  get(@Param('id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ItemBody<DebtorView>> {
    if (!isId('dbt', id)) throw AppError.notFound('debtor');
    return this.core.forward(req, res, RpcPattern.DebtorsGet, { id });
  }
}
