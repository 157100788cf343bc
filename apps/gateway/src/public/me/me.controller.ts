import { Controller, Get, Req, Res } from '@nestjs/common';
import { ItemBody, MeView, RpcPattern } from '@dc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequiresScope } from '../../auth/requires-scope.decorator';
import { CoreClient } from '../../core-client/core-client';
import { ApiDoc } from '../../openapi/api-doc.decorator';

@Controller('me')
export class MeController {
  constructor(private readonly core: CoreClient) {}

  @Get()
  @RequiresScope('read')
  @ApiDoc({ summary: 'Identity of the API key', returns: 'MeView' })
  me(@Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ItemBody<MeView>> {
    return this.core.forward(req, res, RpcPattern.MeGet, {});
  }
}
