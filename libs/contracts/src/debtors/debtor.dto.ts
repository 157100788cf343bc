import { ListQueryDto } from '../common/list-query.dto';
import { CommaListOf, IdFilter } from '../common/query-fields';

/** Debtor statuses (docs/adr/0011). New debtors start `active`; the batch endpoint never writes it. */
export const DEBTOR_STATUSES = ['active', 'in_collection', 'settled', 'unreachable', 'deceased'] as const;
export type DebtorStatus = (typeof DEBTOR_STATUSES)[number];

/** GET /v1/debtors */
export class DebtorListQueryDto extends ListQueryDto {
  @IdFilter()
  portfolioId?: string;

  @CommaListOf(DEBTOR_STATUSES)
  status?: DebtorStatus[];
}

/** Verification marks of a phone or an email (verification.status). */
export const VERIFICATION_STATUSES = ['unverified', 'verified', 'invalid'] as const;
/** Who set a phone's owner (ownerSource): the default, the client (batch `owner`), an agent or a call's analysis. */
export const PHONE_OWNER_SOURCES = ['default', 'client', 'agent', 'call_analysis'] as const;

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
