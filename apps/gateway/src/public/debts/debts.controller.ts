import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { AppError, DebtListQueryDto, DebtView, isId, ItemBody, ListBody, RpcPattern } from '@dc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequiresScope } from '../../auth/requires-scope.decorator';
import { CoreClient } from '../../core-client/core-client';
import { ApiDoc } from '../../openapi/api-doc.decorator';

@Controller('debts')
export class DebtsController {
  constructor(private readonly core: CoreClient) {}

  @Get()
  @RequiresScope('read')
  @ApiDoc({ summary: 'List debts', description: 'Filters: portfolioId, debtorId, status (exactly one of active, paid, cancelled; a comma list is 400).', returns: 'DebtView', list: true })
  list(@Query() query: DebtListQueryDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ListBody<DebtView>> {
    return this.core.forward(req, res, RpcPattern.DebtsList, query);
  }

  @Get(':id')
  @RequiresScope('read')
  @ApiDoc({ summary: 'One debt', description: 'status is derived from the amounts: paid when paidAmount equals totalAmount.', returns: 'DebtView' })
  get(@Param('id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ItemBody<DebtView>> {
    if (!isId('debt', id)) throw AppError.notFound('debt');
    return this.core.forward(req, res, RpcPattern.DebtsGet, { id });
  }
}
