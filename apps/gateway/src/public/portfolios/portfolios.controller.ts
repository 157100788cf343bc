import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { AppError, isId, ItemBody, ListBody, ListQueryDto, PortfolioView, RpcPattern } from '@dc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequiresScope } from '../../auth/requires-scope.decorator';
import { CoreClient } from '../../core-client/core-client';
import { ApiDoc } from '../../openapi/api-doc.decorator';

@Controller('portfolios')
export class PortfoliosController {
  constructor(private readonly core: CoreClient) {}

  @Get()
  @RequiresScope('read')
  @ApiDoc({ summary: 'List portfolios', description: 'Active portfolios of the organization within the key\'s reach, by id.', returns: 'PortfolioView', list: true })
  list(@Query() query: ListQueryDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ListBody<PortfolioView>> {
    return this.core.forward(req, res, RpcPattern.PortfoliosList, query);
  }

  @Get(':id')
  @RequiresScope('read')
  @ApiDoc({ summary: 'One portfolio', returns: 'PortfolioView' })
  get(@Param('id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ItemBody<PortfolioView>> {
    // A malformed id cannot exist: answer as for a missing one, without a hop.
    if (!isId('pf', id)) throw AppError.notFound('portfolio');
    return this.core.forward(req, res, RpcPattern.PortfoliosGet, { id });
  }
}
