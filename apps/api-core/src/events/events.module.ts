import { Module } from '@nestjs/common';
import { EventsHandlers } from './events.handlers';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

@Module({
  controllers: [EventsHandlers],
  providers: [EventsService, EventsRepository],
})
export class EventsModule {}
