import { Module } from '@nestjs/common';
import { CallsHandlers } from './calls.handlers';
import { CallsRepository } from './calls.repository';
import { CallsService } from './calls.service';

@Module({
  controllers: [CallsHandlers],
  providers: [CallsService, CallsRepository],
})
export class CallsModule {}
