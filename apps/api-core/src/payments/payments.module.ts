import { Module } from '@nestjs/common';
import { PaymentsHandlers } from './payments.handlers';
import { PaymentsRepository } from './payments.repository';
import { PaymentsService } from './payments.service';
import { RegisterPaymentUseCase } from './register-payment.usecase';

/** Exports the registration use case: promise fulfilment registers its payment with it. */
@Module({
  controllers: [PaymentsHandlers],
  providers: [PaymentsService, RegisterPaymentUseCase, PaymentsRepository],
  exports: [RegisterPaymentUseCase],
})
export class PaymentsModule {}
