import { Module } from '@nestjs/common';
import { EventsService } from './events.service';
import { OutboxRepository } from './outbox.repository';

/** Webhook events, written to the outbox in the transaction of the change that causes them. */
@Module({
  providers: [EventsService, OutboxRepository],
  exports: [EventsService],
})
export class OutboxModule {}
