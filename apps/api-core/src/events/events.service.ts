import { Injectable } from '@nestjs/common';
import { AppError, AuthContext, EventView, ItemBody, JsonBytes, jsonItemBody, jsonListBody, ListBody, ListEventsQueryDto } from '@dc/contracts';
import { EventsRepository, FeedPosition } from './events.repository';

/** The 400 of an `after` the key cannot use: unknown, pruned and another organization's answer alike. */
const UNKNOWN_AFTER = 'after must be the id of an event the key can read (events are kept 30 days)';

/**
 * GET /v1/events and /v1/events/{id} (docs/adr/0048): the outbox rows the key can reach, in the
 * feed's order. A page starts after its cursor, else after `after` (a page's cursor is always
 * further: it was issued for a page that started after `after`).
 */
@Injectable()
export class EventsService {
  constructor(private readonly events: EventsRepository) {}

  async list(auth: AuthContext, query: ListEventsQueryDto): Promise<JsonBytes<ListBody<EventView>>> {
    const position = await this.position(auth, query);
    const filter = { types: query.type, portfolioId: query.portfolioId, from: query.from, to: query.to };
    const { rows, resumeAfter } = await this.events.listReachable(auth, filter, position, query.limit + 1);
    return new JsonBytes(Buffer.from(jsonListBody(rows, query.limit, resumeAfter)));
  }

  async get(auth: AuthContext, id: string): Promise<JsonBytes<ItemBody<EventView>>> {
    const event = await this.events.findReachable(auth, id);
    if (!event) throw AppError.notFound('event');
    return new JsonBytes(Buffer.from(jsonItemBody(event)));
  }

  /** The position the page starts after, from the events `after` and the cursor name (one statement for both). */
  private async position(auth: AuthContext, query: ListEventsQueryDto): Promise<FeedPosition | null> {
    const ids = [query.after, query.cursor].filter((id): id is string => id !== undefined);
    if (!ids.length) return null;
    const listed = new Map((await this.events.listed(auth, ids)).map((event) => [event.id, event]));
    if (query.after !== undefined && !listed.get(query.after)?.reachable) {
      throw AppError.validation(UNKNOWN_AFTER, [{ message: UNKNOWN_AFTER, path: 'after' }]);
    }
    // The cursor, when sent, is further than `after`: it was issued for a page that started after it.
    const at = listed.get(query.cursor ?? ids[0]);
    if (!at) {
      // Only a cursor gets here: its event was pruned (a page resumed more than 30 days later).
      const message = 'cursor is not valid: its event is no longer kept; resume with after=<the last event id processed>';
      throw AppError.validation(message, [{ message, path: 'cursor' }]);
    }
    return { id: at.id, position: at.position };
  }
}
