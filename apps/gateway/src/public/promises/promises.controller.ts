import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ListBody, ListPromisesQueryDto, PromiseView, RpcPattern } from '@dc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequiresScope } from '../../auth/requires-scope.decorator';
import { CoreClient } from '../../core-client/core-client';
import { ApiDoc } from '../../openapi/api-doc.decorator';

/** Promises are list-only in v1 (spec). */
@Controller('promises')
export class PromisesController {
  constructor(private readonly core: CoreClient) {}

  @Get()
  @RequiresScope('read')
  @ApiDoc({ summary: 'List promises of payment', description: 'Filters: portfolioId, debtorId, status (comma list). List only in v1.', returns: 'PromiseView', list: true })
  list(@Query() query: ListPromisesQueryDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ListBody<PromiseView>> {
    return this.core.forward(req, res, RpcPattern.PromisesList, query);
  }
}
