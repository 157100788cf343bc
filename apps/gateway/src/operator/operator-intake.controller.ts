import { Body, Controller, HttpCode, Param, Patch, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  AppError, CampaignTransitionDto, CreateCallDto, CreateCampaignDto, CreatePromiseDto, FulfilPromiseDto, isId, RpcPattern,
  SetPromiseStatusDto, UpdateCallDto,
} from '@dc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OperatorTokenGuard } from '../auth/operator-token.guard';
import { CoreClient } from '../core-client/core-client';

/** Path ids that cannot exist answer 404 without a hop. */
function pathId(prefix: Parameters<typeof isId>[0], id: string, what: string): string {
  if (!isId(prefix, id)) throw AppError.notFound(what);
  return id;
}

/**
 * Operator intake of calls, promises and campaigns (ARCHITECTURE.md, Operator API): they come
 * from other parts of the platform. Forwarded to api-core over NATS like every operator call.
 */
@Controller()
@UseGuards(OperatorTokenGuard)
export class OperatorIntakeController {
  constructor(private readonly core: CoreClient) {}

  @Post('portfolios/:id/calls')
  createCall(@Param('id') id: string, @Body() body: CreateCallDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorCallCreate, { portfolioId: pathId('pf', id, 'portfolio'), body });
  }

  @Patch('calls/:id')
  updateCall(@Param('id') id: string, @Body() body: UpdateCallDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorCallUpdate, { id: pathId('call', id, 'call'), body });
  }

  @Post('portfolios/:id/promises')
  createPromise(@Param('id') id: string, @Body() body: CreatePromiseDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorPromiseCreate, { portfolioId: pathId('pf', id, 'portfolio'), body });
  }

  @Post('promises/:id/status')
  @HttpCode(200)
  setPromiseStatus(@Param('id') id: string, @Body() body: SetPromiseStatusDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorPromiseSetStatus, { id: pathId('prm', id, 'promise'), body });
  }

  @Post('promises/:id/fulfil')
  @HttpCode(200)
  fulfilPromise(@Param('id') id: string, @Body() body: FulfilPromiseDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorPromiseFulfil, { id: pathId('prm', id, 'promise'), body });
  }

  @Post('portfolios/:id/campaigns')
  createCampaign(@Param('id') id: string, @Body() body: CreateCampaignDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorCampaignCreate, { portfolioId: pathId('pf', id, 'portfolio'), body });
  }

  @Post('campaigns/:id/transition')
  @HttpCode(200)
  transitionCampaign(@Param('id') id: string, @Body() body: CampaignTransitionDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorCampaignTransition, { id: pathId('cmp', id, 'campaign'), body });
  }
}
