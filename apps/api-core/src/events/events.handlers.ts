import { Controller } from '@nestjs/common';
import { AuthContext, ByIdInput, EventsRpc, ListEventsQueryDto } from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { EventsService } from './events.service';

@Controller()
export class EventsHandlers {
  constructor(private readonly events: EventsService) {}

  @Handles(EventsRpc.list)
  list(input: ListEventsQueryDto, auth: AuthContext) {
    return this.events.list(auth, input);
  }

  @Handles(EventsRpc.get)
  get(input: ByIdInput, auth: AuthContext) {
    return this.events.get(auth, input.id);
  }
}
