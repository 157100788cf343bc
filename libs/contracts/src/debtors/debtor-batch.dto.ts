// class-transformer's @Type reads design types: load the polyfill wherever the contracts are imported (tests, scripts).
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { MAX_AMOUNT, MAX_AMOUNT_MESSAGE } from '../validation/decimal-amount';
import { IsIsoDateOrDateTime } from '../validation/iso-date';
import { COUNTRY_CODE_PATTERN, CURRENCY_CODE_PATTERN } from '../validation/iso-4217';
import {
  ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsEmail, IsIn, IsNumber, IsOptional, IsString, Length, Matches, Max,
  MaxLength, Min, ValidateNested, IsPositive,
} from 'class-validator';

/** Limits of POST /v1/portfolios/{id}/debtors (spec: Limits; maxLengths: docs/adr/0012). */
export const DebtorBatchLimits = {
  maxDebtors: 500,
  maxBodyBytes: 5 * 1024 * 1024,
  maxDebts: 20,
  maxPhones: 10,
  maxEmails: 5,
  externalId: 128,
  name: 200,
  documentNumber: 64,
  street: 300,
  addressPart: 100,
  postalCode: 20,
  type: 50,
  description: 1000,
  phone: 32,
  email: 254,
} as const;

/** dueDate / issueDate: a date, optionally followed by a time (and an optional offset). Stored as text, as sent. */
export const BATCH_DATE_PATTERN = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export const PHONE_OWNERS = ['holder', 'third_party', 'reference', 'guarantor', 'unknown'] as const;
export type PhoneOwner = (typeof PHONE_OWNERS)[number];

/** The closed list of per-item rejection codes (results[].reason.code). */
export enum DebtorBatchReason {
  InvalidPhone = 'invalid_phone',
  DuplicateInBatch = 'duplicate_in_batch',
  InvalidAmount = 'invalid_amount',
  DebtCurrencyInvalid = 'debt_currency_invalid',
  DebtDuplicateInItem = 'debt_duplicate_in_item',
  DebtDuplicateInBatch = 'debt_duplicate_in_batch',
  DebtExternalIdInUse = 'debt_external_id_in_use',
  DebtCurrencyMismatch = 'debt_currency_mismatch',
  ErasedSubject = 'erased_subject',
  Internal = 'internal',
}

const L = DebtorBatchLimits;
const text = (max: number) => MaxLength(max, { message: `$property must be at most ${max} characters` });

export class BatchPhoneDto {
  @IsString()
  @Length(1, L.phone)
  phone!: string;

  @IsOptional()
  @IsBoolean()
  primary?: boolean;

  @IsOptional()
  @IsString()
  @text(L.type)
  type?: string;

  @IsOptional()
  @IsIn(PHONE_OWNERS, { message: `$property must be one of ${PHONE_OWNERS.join(', ')}` })
  owner?: PhoneOwner;
}

export class BatchEmailDto {
  @IsString()
  @text(L.email)
  @IsEmail({}, { message: '$property must be an email address' })
  address!: string;

  @IsOptional()
  @IsBoolean()
  primary?: boolean;

  @IsOptional()
  @IsString()
  @text(L.type)
  type?: string;
}

export class BatchDebtDto {
  @IsString()
  @Length(1, L.externalId)
  externalId!: string;

  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive({ message: '$property must be greater than 0' })
  @Max(MAX_AMOUNT, { message: MAX_AMOUNT_MESSAGE })
  totalAmount!: number;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0, { message: '$property must be 0 or more' })
  @Max(MAX_AMOUNT, { message: MAX_AMOUNT_MESSAGE })
  paidAmount?: number;

  /** Pattern only: a well-formed code that is not ISO 4217 is the per-item debt_currency_invalid. */
  @IsString()
  @Matches(CURRENCY_CODE_PATTERN, { message: '$property must be three capital letters (ISO 4217)' })
  currency!: string;

  @IsOptional()
  @IsString()
  @Matches(BATCH_DATE_PATTERN, { message: '$property must be a date YYYY-MM-DD, optionally followed by a time THH:MM[:SS[.fff]][Z|±HH:MM]' })
  @IsIsoDateOrDateTime({ message: '$property must be a real calendar date (and time of day)' })
  dueDate?: string;

  @IsOptional()
  @IsString()
  @Matches(BATCH_DATE_PATTERN, { message: '$property must be a date YYYY-MM-DD, optionally followed by a time THH:MM[:SS[.fff]][Z|±HH:MM]' })
  @IsIsoDateOrDateTime({ message: '$property must be a real calendar date (and time of day)' })
  issueDate?: string;

  @IsOptional()
  @IsString()
  @text(L.description)
  description?: string;

  @IsOptional()
  @IsString()
  @text(L.type)
  debtType?: string;
}

export class BatchDebtorDto {
  @IsString()
  @Length(1, L.externalId)
  externalId!: string;

  @IsString()
  @Length(1, L.name)
  identityFirstName!: string;

  @IsString()
  @Length(1, L.type)
  identityDocumentType!: string;

  @IsString()
  @Length(1, L.documentNumber)
  identityDocumentNumber!: string;

  @IsOptional() @IsString() @text(L.name) identityLastName?: string;
  @IsOptional() @IsString() @text(L.type) identityEntityType?: string;
  @IsOptional() @IsString() @text(L.name) contactInfoContactName?: string;
  @IsOptional() @IsString() @text(L.addressPart) contactInfoAddressCity?: string;
  @IsOptional() @IsString() @text(L.addressPart) contactInfoAddressState?: string;
  @IsOptional() @IsString() @text(L.postalCode) contactInfoAddressPostalCode?: string;
  @IsOptional() @IsString() @text(L.street) contactInfoAddressStreet?: string;

  @IsOptional()
  @IsString()
  @Matches(COUNTRY_CODE_PATTERN, { message: '$property must be two capital letters (ISO 3166-1 alpha-2)' })
  contactInfoAddressCountry?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.maxPhones)
  @ValidateNested({ each: true })
  @Type(() => BatchPhoneDto)
  contactInfoPhoneNumbers?: BatchPhoneDto[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.maxEmails)
  @ValidateNested({ each: true })
  @Type(() => BatchEmailDto)
  contactInfoEmails?: BatchEmailDto[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.maxDebts)
  @ValidateNested({ each: true })
  @Type(() => BatchDebtDto)
  debts?: BatchDebtDto[];

  @IsOptional() @IsBoolean() complianceOptOut?: boolean;
  @IsOptional() @IsBoolean() complianceConsentToCall?: boolean;
  @IsOptional() @IsBoolean() complianceConsentToWhatsapp?: boolean;
  @IsOptional() @IsBoolean() complianceConsentToEmail?: boolean;
  @IsOptional() @IsBoolean() complianceConsentToSms?: boolean;
}

export class DebtorBatchDto {
  @IsArray()
  @ArrayMinSize(1, { message: '$property must contain at least 1 debtor' })
  @ArrayMaxSize(L.maxDebtors)
  @ValidateNested({ each: true })
  @Type(() => BatchDebtorDto)
  debtors!: BatchDebtorDto[];
}

/** RPC input of DebtorsRpc.batchWrite. A large batch is the transport's concern (docs/adr/0017). */
export interface DebtorBatchInput {
  portfolioId: string;
  debtors: BatchDebtorDto[];
}

export interface DebtorBatchResultDebt {
  externalId: string;
  id: string;
  status: 'created' | 'updated';
}

/** An item written: the debtor's id and what happened to each debt sent. */
export interface DebtorBatchAcceptedResult {
  index: number;
  externalId: string;
  status: 'created' | 'updated';
  id: string;
  debts: DebtorBatchResultDebt[];
}

/** An item refused: nothing of it was written. */
export interface DebtorBatchRejectedResult {
  index: number;
  externalId: string;
  status: 'rejected';
  /** The id of the debtor already stored under this externalId; null when there is none. */
  id: string | null;
  /** Always empty: no debt of a refused item is written. */
  debts: never[];
  reason: { code: DebtorBatchReason; message: string; path: string };
}

/** One result per item, discriminated by `status` (the OpenAPI document says so with a oneOf). */
export type DebtorBatchResult = DebtorBatchAcceptedResult | DebtorBatchRejectedResult;

export interface DebtorBatchView {
  results: DebtorBatchResult[];
  summary: { created: number; received: number; rejected: number; updated: number };
}
