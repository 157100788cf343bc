import { Controller } from '@nestjs/common';
import { ItemBody, MeView } from '@dc/contracts';
import { Caller } from '../../core-client/caller.decorator';
import type { PublicCaller } from '../../core-client/core-client';
import { PublicRoute } from '../../routes/public-route.decorator';

@Controller('me')
export class MeController {
  /**
   * Answered from the key cache, without a round trip to api-core: the identity came with the key's
   * verification and may lag by the cache's 60 s like scopes and reach (spec Authentication 7).
   */
  @PublicRoute({
    method: 'GET',
    scope: 'read',
    rpc: { status: 200 },
    doc: {
      summary: 'Identity of the API key',
      description: 'Served from the 60-second key cache: a change of the key, its organization or its portfolios can take up to 60 seconds to show.',
      returns: 'MeView',
    },
  })
  me(@Caller() request: PublicCaller): ItemBody<MeView> {
    return { data: request.caller.identity };
  }
}
