import {
  IsIn, IsNotEmpty, IsNumber, IsOptional, IsPositive, IsString, Matches, Max, MaxLength,
} from 'class-validator';
import { ListQueryDto } from '../common/list-query.dto';
import { IdFilter } from '../common/query-fields';
import { CURRENCY_CODE_PATTERN, IsCurrencyCode } from '../validation/iso-4217';
import { IsCalendarDate, IsIsoDateOrDateTime } from '../validation/iso-date';
import { HasAtMostFourDecimals, MAX_AMOUNT, MAX_AMOUNT_MESSAGE } from '../validation/decimal-amount';

export const PAYMENT_METHODS = ['transfer', 'cash', 'collection_network', 'deposit', 'card', 'check', 'other'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export const DEFAULT_PAYMENT_METHOD: PaymentMethod = 'transfer';

/** How a payment entered the system (payments.source). `import` rows come from portfolio loads only. */
export const PAYMENT_SOURCES = ['api', 'panel', 'collection_link', 'promise', 'import'] as const;
export type PaymentSource = (typeof PAYMENT_SOURCES)[number];

/** Sources the operator intake accepts. */
export const OPERATOR_PAYMENT_SOURCES = ['panel', 'collection_link'] as const;
export type OperatorPaymentSource = (typeof OPERATOR_PAYMENT_SOURCES)[number];

/** Fields shared by POST /v1/payments and the operator intake. */
class PaymentFieldsDto {
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number' })
  @IsPositive({ message: 'amount must be greater than 0' })
  @Max(MAX_AMOUNT, { message: MAX_AMOUNT_MESSAGE })
  @HasAtMostFourDecimals()
  amount!: number;

  @IsOptional()
  @IsString()
  @Matches(CURRENCY_CODE_PATTERN, { message: 'currency must match ^[A-Z]{3}$' })
  @IsCurrencyCode()
  currency?: string;

  @IsString()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'paymentDate must match ^\\d{4}-\\d{2}-\\d{2}$ (YYYY-MM-DD)' })
  @IsCalendarDate()
  paymentDate!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  debtorId!: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  debtId?: string;

  @IsOptional()
  @IsIn(PAYMENT_METHODS, { message: `method must be one of: ${PAYMENT_METHODS.join(', ')}` })
  method?: PaymentMethod;

  @IsOptional()
  @IsString()
  @MaxLength(255)
  reference?: string;
}

/** Body of POST /v1/payments. */
export class RegisterPaymentDto extends PaymentFieldsDto {
  @IsString()
  @IsNotEmpty({ message: 'externalId must be 1 to 128 characters long' })
  @MaxLength(128, { message: 'externalId must be 1 to 128 characters long' })
  externalId!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  portfolioId!: string;
}

/** Body of the operator intake POST /operator/v1/portfolios/{id}/payments (no externalId). */
export class OperatorRegisterPaymentDto extends PaymentFieldsDto {
  @IsIn(OPERATOR_PAYMENT_SOURCES, { message: `source must be one of: ${OPERATOR_PAYMENT_SOURCES.join(', ')}` })
  source!: OperatorPaymentSource;
}

/**
 * Query of GET /v1/payments. `from`/`to` are compared as text against paymentDate (spec list
 * rule 8), so they are only checked to be ISO 8601, never normalised.
 */
export class ListPaymentsQueryDto extends ListQueryDto {
  @IdFilter()
  portfolioId?: string;

  @IdFilter()
  debtorId?: string;

  @IsOptional() @IsString() @IsIsoDateOrDateTime()
  from?: string;

  @IsOptional() @IsString() @IsIsoDateOrDateTime()
  to?: string;
}
