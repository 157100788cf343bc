import {
  IsIn, IsNotEmpty, IsNumber, IsOptional, IsPositive, IsString, Matches, Max, MaxLength,
} from 'class-validator';
import { PAYMENT_METHODS, PaymentMethod } from '../payments/payment.dto';
import { IsCurrencyCode } from '../validation/iso-4217';
import { IsCalendarDate, IsIsoDateOrDateTime } from '../validation/iso-date';
import { HasAtMostFourDecimals, MAX_AMOUNT, MAX_AMOUNT_MESSAGE } from '../validation/decimal-amount';

/** POST /operator/v1/portfolios/{id}/promises: a new pending promise. */
export class CreatePromiseDto {
  @IsString() @IsNotEmpty() @MaxLength(64)
  debtorId!: string;

  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(64)
  debtId?: string;

  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(64)
  callId?: string;

  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number' })
  @IsPositive({ message: 'amount must be greater than 0' })
  @Max(MAX_AMOUNT, { message: MAX_AMOUNT_MESSAGE })
  @HasAtMostFourDecimals()
  amount!: number;

  /** Omitted: the debt's currency, else the portfolio's main currency. */
  @IsOptional() @IsString() @IsCurrencyCode()
  currency?: string;

  @IsString() @IsIsoDateOrDateTime()
  promiseDate!: string;
}

/** Final states an operator can set directly; fulfilled goes through /fulfil (it registers a payment). */
export const OPERATOR_PROMISE_STATUSES = ['partial', 'broken', 'cancelled'] as const;
export type OperatorPromiseStatus = (typeof OPERATOR_PROMISE_STATUSES)[number];

/** POST /operator/v1/promises/{id}/status */
export class SetPromiseStatusDto {
  @IsIn(OPERATOR_PROMISE_STATUSES, { message: `status must be one of: ${OPERATOR_PROMISE_STATUSES.join(', ')}` })
  status!: OperatorPromiseStatus;
}

/** POST /operator/v1/promises/{id}/fulfil: every field defaults from the promise (amount) or today (paymentDate). */
export class FulfilPromiseDto {
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number' })
  @IsPositive({ message: 'amount must be greater than 0' })
  @Max(MAX_AMOUNT, { message: MAX_AMOUNT_MESSAGE })
  @HasAtMostFourDecimals()
  amount?: number;

  @IsOptional() @IsString()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'paymentDate must match ^\\d{4}-\\d{2}-\\d{2}$ (YYYY-MM-DD)' })
  @IsCalendarDate()
  paymentDate?: string;

  @IsOptional() @IsIn(PAYMENT_METHODS, { message: `method must be one of: ${PAYMENT_METHODS.join(', ')}` })
  method?: PaymentMethod;

  @IsOptional() @IsString() @MaxLength(255)
  reference?: string;
}
