import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module';
import { CallsHandlers } from './calls.handlers';
import { CallsRepository } from './calls.repository';
import { CallsService } from './calls.service';

@Module({
  imports: [OutboxModule],
  controllers: [CallsHandlers],
  providers: [CallsService, CallsRepository],
})
export class CallsModule {}
