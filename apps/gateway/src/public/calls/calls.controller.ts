import { Controller, Param, Query } from '@nestjs/common';
import { AppError, CallsRpc, isId, ListCallsQueryDto } from '@dc/contracts';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, PublicCaller } from '../../core-client/core-client';
import { cappedScanDoc } from '../../routes/capped-scan-doc';
import { PublicRoute } from '../../routes/public-route.decorator';

@Controller('calls')
export class CallsController {
  constructor(private readonly core: CoreClient) {}

  @PublicRoute({
    method: 'GET',
    scope: 'read',
    rpc: CallsRpc.list,
    doc: {
      summary: 'List calls',
      description:
        'Filters: portfolioId, debtorId, campaignId, status (comma list), direction (inbound, outbound), from/to on createdAt (ISO 8601 date or date-time; ' +
        'a to without time means the end of that day in UTC). List items never carry analysis. ' +
        `${cappedScanDoc('from or to, or more than one of debtorId, campaignId, status and direction', 'calls', true)} ` +
        'Calls of a deleted or erased debtor stay listed (operational history); once the debtor is erased at the data subject\'s request, fromNumber and toNumber are null.',
      returns: 'CallListItemView',
      list: true,
    },
  })
  list(@Query() query: ListCallsQueryDto, @Caller() caller: PublicCaller) {
    return this.core.send(CallsRpc.list, caller, query);
  }

  @PublicRoute({
    method: 'GET',
    path: ':id',
    scope: 'read',
    rpc: CallsRpc.get,
    doc: {
      summary: 'One call',
      description:
        'Includes analysis, null until the call is analysed (a normal transient state). A call of a deleted or erased debtor stays readable; ' +
        'once the debtor is erased at the data subject\'s request, fromNumber, toNumber and analysis are null.',
      returns: 'CallView',
    },
  })
  get(@Param('id') id: string, @Caller() caller: PublicCaller) {
    if (!isId('call', id)) throw AppError.notFound('call');
    return this.core.send(CallsRpc.get, caller, { id });
  }
}
