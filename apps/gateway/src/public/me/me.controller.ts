import { Controller } from '@nestjs/common';
import { AuthRpc } from '@dc/contracts';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, PublicCaller } from '../../core-client/core-client';
import { PublicRoute } from '../../routes/public-route.decorator';

@Controller('me')
export class MeController {
  constructor(private readonly core: CoreClient) {}

  @PublicRoute({ method: 'GET', scope: 'read', rpc: AuthRpc.me, doc: { summary: 'Identity of the API key', returns: 'MeView' } })
  me(@Caller() caller: PublicCaller) {
    return this.core.send(AuthRpc.me, caller, {});
  }
}
