import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ListQueryDto } from './list-query.dto';

/** Debtor statuses (docs/adr/0011). New debtors start `active`; the batch endpoint never writes it. */
export const DEBTOR_STATUSES = ['active', 'in_collection', 'settled', 'unreachable', 'deceased'] as const;
export type DebtorStatus = (typeof DEBTOR_STATUSES)[number];

/**
 * A comma list (`a,b`) or a repeated parameter (`?status=a&status=b`) as trimmed values. An empty
 * value means "no filter"; an empty element (`a,`) stays and fails validation.
 */
export function parseCommaList(value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
  const trimmed = parts.map((p) => (typeof p === 'string' ? p.trim() : p));
  return trimmed.length === 1 && trimmed[0] === '' ? undefined : trimmed;
}

/** An id filter (portfolioId, debtorId): one opaque string; a malformed one simply matches nothing. */
export const ID_FILTER_MESSAGE = (name: string) => `${name} must be a single id`;

/** GET /v1/debtors */
export class DebtorListQueryDto extends ListQueryDto {
  @IsOptional()
  @IsString({ message: ID_FILTER_MESSAGE('portfolioId') })
  @MaxLength(64, { message: ID_FILTER_MESSAGE('portfolioId') })
  portfolioId?: string;

  @IsOptional()
  @Transform(({ value }) => parseCommaList(value))
  @IsIn(DEBTOR_STATUSES, { each: true, message: `status must be one or more of: ${DEBTOR_STATUSES.join(', ')} (comma-separated)` })
  status?: DebtorStatus[];
}

export interface DebtorVerificationView {
  status: string;
  verified: boolean;
}

export interface DebtorPhoneView {
  phone: string;
  primary: boolean;
  type: string | null;
  /** holder | third_party | reference | guarantor | unknown */
  owner: string;
  /** Who set owner: default | client | agent | call_analysis */
  ownerSource: string;
  verification: DebtorVerificationView;
}

export interface DebtorEmailView {
  address: string;
  primary: boolean;
  type: string | null;
  verification: DebtorVerificationView;
}

/** Public representation of a debtor (GET /v1/debtors, /v1/debtors/{id}); same shape in lists. */
export interface DebtorView {
  id: string;
  portfolioId: string;
  externalId: string | null;
  status: string;
  priority: number;
  identityFirstName: string | null;
  identityLastName: string | null;
  identityDocumentType: string | null;
  identityDocumentNumber: string | null;
  identityEntityType: string | null;
  contactInfoContactName: string | null;
  contactInfoAddressStreet: string | null;
  contactInfoAddressCity: string | null;
  contactInfoAddressState: string | null;
  contactInfoAddressPostalCode: string | null;
  contactInfoAddressCountry: string | null;
  /** In position order. */
  contactInfoPhoneNumbers: DebtorPhoneView[];
  /** In position order. */
  contactInfoEmails: DebtorEmailView[];
  complianceOptOut: boolean;
  complianceConsentToCall: boolean;
  complianceConsentToWhatsapp: boolean;
  complianceConsentToEmail: boolean;
  complianceConsentToSms: boolean;
  createdAt: string;
  updatedAt: string;
}

/** POST /operator/v1/debtors/{id}/erase */
export interface DebtorErasureView {
  id: string;
  erasedAt: string;
}
