import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { AppError, CampaignView, isId, ItemBody, ListBody, ListCampaignsQueryDto, RpcPattern } from '@dc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequiresScope } from '../../auth/requires-scope.decorator';
import { CoreClient } from '../../core-client/core-client';
import { ApiDoc } from '../../openapi/api-doc.decorator';

@Controller('campaigns')
export class CampaignsController {
  constructor(private readonly core: CoreClient) {}

  @Get()
  @RequiresScope('read')
  @ApiDoc({ summary: 'List campaigns', description: 'Filters: portfolioId, status (comma list). Each campaign carries its aggregate metrics.', returns: 'CampaignView', list: true })
  list(@Query() query: ListCampaignsQueryDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ListBody<CampaignView>> {
    return this.core.forward(req, res, RpcPattern.CampaignsList, query);
  }

  @Get(':id')
  @RequiresScope('read')
  @ApiDoc({ summary: 'One campaign', returns: 'CampaignView' })
  get(@Param('id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ItemBody<CampaignView>> {
    if (!isId('cmp', id)) throw AppError.notFound('campaign');
    return this.core.forward(req, res, RpcPattern.CampaignsGet, { id });
  }
}
