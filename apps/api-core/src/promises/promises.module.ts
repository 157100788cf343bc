import { Module } from '@nestjs/common';
import { PaymentsModule } from '../payments/payments.module';
import { PromisesHandlers } from './promises.handlers';
import { PromisesRepository } from './promises.repository';
import { PromisesService } from './promises.service';

@Module({
  imports: [PaymentsModule],
  controllers: [PromisesHandlers],
  providers: [PromisesService, PromisesRepository],
})
export class PromisesModule {}
