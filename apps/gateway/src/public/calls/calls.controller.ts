import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { AppError, CallListItemView, CallView, isId, ItemBody, ListBody, ListCallsQueryDto, RpcPattern } from '@dc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequiresScope } from '../../auth/requires-scope.decorator';
import { CoreClient } from '../../core-client/core-client';
import { ApiDoc } from '../../openapi/api-doc.decorator';

@Controller('calls')
export class CallsController {
  constructor(private readonly core: CoreClient) {}

  /** Filters: portfolioId, debtorId, campaignId, status (comma list), direction, from/to over createdAt. */
  @Get()
  @RequiresScope('read')
  @ApiDoc({ summary: 'List calls', description: 'Filters: portfolioId, debtorId, campaignId, status (comma list), direction (inbound, outbound), from/to on createdAt (ISO 8601 date or date-time; a to without time means the end of that day in UTC). List items never carry analysis.', returns: 'CallListItemView', list: true })
  list(@Query() query: ListCallsQueryDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ListBody<CallListItemView>> {
    return this.core.forward(req, res, RpcPattern.CallsList, query);
  }

  @Get(':id')
  @RequiresScope('read')
  @ApiDoc({ summary: 'One call', description: 'Includes analysis, null until the call is analysed (a normal transient state).', returns: 'CallView' })
  get(@Param('id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ItemBody<CallView>> {
    if (!isId('call', id)) throw AppError.notFound('call');
    return this.core.forward(req, res, RpcPattern.CallsGet, { id });
  }
}
