import { Module } from '@nestjs/common';
import { DebtorsHandlers } from './debtors.handlers';
import { DebtorsRepository } from './debtors.repository';
import { LegacyTombstoneRekeyer } from './legacy-tombstone-rekeyer';
import { DebtorsService } from './debtors.service';

@Module({
  controllers: [DebtorsHandlers],
  providers: [DebtorsService, DebtorsRepository, LegacyTombstoneRekeyer],
})
export class DebtorsModule {}
