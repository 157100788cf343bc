import type { ItemBody, ListBody } from '../pagination';
import { ByIdInput, publicRead } from '../rpc/contract';
import type { EventView, ListEventsQueryDto } from './event.dto';

export const EventsRpc = {
  list: publicRead<ListEventsQueryDto, ListBody<EventView>>('events.list'),
  get: publicRead<ByIdInput, ItemBody<EventView>>('events.get'),
} as const;
