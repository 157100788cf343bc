import { Module } from '@nestjs/common';
import { DebtsHandlers } from './debts.handlers';
import { DebtsRepository } from './debts.repository';
import { DebtsService } from './debts.service';

@Module({
  controllers: [DebtsHandlers],
  providers: [DebtsService, DebtsRepository],
})
export class DebtsModule {}
