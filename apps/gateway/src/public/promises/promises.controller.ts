import { Controller, Query } from '@nestjs/common';
import { ListPromisesQueryDto, PromisesRpc } from '@dc/contracts';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, PublicCaller } from '../../core-client/core-client';
import { cappedScanDoc } from '../../routes/capped-scan-doc';
import { PublicRoute } from '../../routes/public-route.decorator';

/** Promises are list-only in v1 (spec). */
@Controller('promises')
export class PromisesController {
  constructor(private readonly core: CoreClient) {}

  @PublicRoute({
    method: 'GET',
    scope: 'read',
    rpc: PromisesRpc.list,
    doc: {
      summary: 'List promises of payment',
      description:
        'Filters: portfolioId, debtorId, status (comma list). List only in v1. Promises of a deleted or erased debtor stay listed (they hold no personal data). ' +
        cappedScanDoc('debtorId and status together', 'promises', true),
      returns: 'PromiseView',
      list: true,
    },
  })
  list(@Query() query: ListPromisesQueryDto, @Caller() caller: PublicCaller) {
    return this.core.send(PromisesRpc.list, caller, query);
  }
}
