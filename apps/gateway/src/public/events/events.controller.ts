import { Controller, Param, Query } from '@nestjs/common';
import { AppError, EVENT_RETENTION_DAYS, EventsRpc, isId, ListEventsQueryDto } from '@dc/contracts';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, PublicCaller } from '../../core-client/core-client';
import { cappedScanDoc } from '../../routes/capped-scan-doc';
import { PublicRoute } from '../../routes/public-route.decorator';

@Controller('events')
export class EventsController {
  constructor(private readonly core: CoreClient) {}

  @PublicRoute({
    method: 'GET',
    scope: 'read',
    rpc: EventsRpc.list,
    doc: {
      summary: 'List events',
      description:
        'Every event the key can reach (payment.registered, promise.created, call.completed), whether or not a webhook is registered; ' +
        `kept ${EVENT_RETENTION_DAYS} days. Oldest first, in the feed's order, which only grows: an event is listed (and delivered) within about a ` +
        'second of its write, after every event listed before it, so a page never skips an event that commits later. ' +
        'Resume where you stopped with after=<the last event id you processed>: the events after it, oldest first, each once. ' +
        'An after that is unknown, older than the retention or outside the key\'s reach is 400 validation_error naming after. ' +
        'Filters: type (comma list), portfolioId, from/to on createdAt (ISO 8601 date or date-time; a to without time means the end of that day in UTC). ' +
        'data is exactly the data of the event\'s webhook deliveries, whose eventId is this id. ' +
        `${cappedScanDoc('type, from or to', 'events')}`,
      returns: 'EventView',
      list: true,
    },
  })
  list(@Query() query: ListEventsQueryDto, @Caller() caller: PublicCaller) {
    return this.core.send(EventsRpc.list, caller, query);
  }

  @PublicRoute({
    method: 'GET',
    path: ':id',
    scope: 'read',
    rpc: EventsRpc.get,
    doc: {
      summary: 'One event',
      description: `The event as its list item. An event of another organization, outside the key's portfolios or older than ${EVENT_RETENTION_DAYS} days is 404.`,
      returns: 'EventView',
    },
  })
  get(@Param('id') id: string, @Caller() caller: PublicCaller) {
    if (!isId('evt', id)) throw AppError.notFound('event');
    return this.core.send(EventsRpc.get, caller, { id });
  }
}
