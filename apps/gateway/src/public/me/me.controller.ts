import { Controller } from '@nestjs/common';
import { ItemBody, MeView } from '@dc/contracts';
import { Caller } from '../../core-client/caller.decorator';
import type { PublicCaller } from '../../core-client/core-client';
import { PublicRoute } from '../../routes/public-route.decorator';

@Controller('me')
export class MeController {
  /**
   * Answered from the key cache, without a round trip to api-core: the identity came with the key's
   * verification. Operator changes of the key, its organization or a portfolio's status clear the
   * entry on every gateway (auth.invalidate); a lost message leaves it at most the cache's 60 s.
   */
  @PublicRoute({
    method: 'GET',
    scope: 'read',
    rpc: { status: 200 },
    doc: {
      summary: 'Identity of the API key',
      description:
        'Served from the 60-second key cache, which a change of the key, its organization or its portfolios (one activated, deactivated or created) clears at once: `portfolioCount` agrees with `GET /v1/portfolios`. Should the clearing fail, the change shows within 60 seconds.',
      returns: 'MeView',
    },
  })
  me(@Caller() request: PublicCaller): ItemBody<MeView> {
    return { data: request.caller.identity };
  }
}
