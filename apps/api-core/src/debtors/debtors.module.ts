import { Module } from '@nestjs/common';
import { DebtorsHandlers } from './debtors.handlers';
import { DebtorsRepository } from './debtors.repository';
import { DebtorsService } from './debtors.service';

@Module({
  controllers: [DebtorsHandlers],
  providers: [DebtorsService, DebtorsRepository],
})
export class DebtorsModule {}
