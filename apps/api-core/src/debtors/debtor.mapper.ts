import { DebtorEmailView, DebtorPhoneView, DebtorView } from '@dc/contracts';

interface PhoneRow {
  phone: string;
  primary: boolean;
  type: string | null;
  owner: string;
  ownerSource: string;
  verificationStatus: string;
  verified: boolean;
}

interface EmailRow {
  address: string;
  primary: boolean;
  type: string | null;
  verificationStatus: string;
  verified: boolean;
}

export interface DebtorRow {
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
  complianceOptOut: boolean;
  complianceConsentToCall: boolean;
  complianceConsentToWhatsapp: boolean;
  complianceConsentToEmail: boolean;
  complianceConsentToSms: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** Already in position order (the repository sorts them). */
  phones: PhoneRow[];
  emails: EmailRow[];
}

function toPhoneView(p: PhoneRow): DebtorPhoneView {
  return {
    phone: p.phone,
    primary: p.primary,
    type: p.type,
    owner: p.owner,
    ownerSource: p.ownerSource,
    verification: { status: p.verificationStatus, verified: p.verified },
  };
}

function toEmailView(e: EmailRow): DebtorEmailView {
  return { address: e.address, primary: e.primary, type: e.type, verification: { status: e.verificationStatus, verified: e.verified } };
}

export function toDebtorView(row: DebtorRow): DebtorView {
  return {
    id: row.id,
    portfolioId: row.portfolioId,
    externalId: row.externalId,
    status: row.status,
    priority: row.priority,
    identityFirstName: row.identityFirstName,
    identityLastName: row.identityLastName,
    identityDocumentType: row.identityDocumentType,
    identityDocumentNumber: row.identityDocumentNumber,
    identityEntityType: row.identityEntityType,
    contactInfoContactName: row.contactInfoContactName,
    contactInfoAddressStreet: row.contactInfoAddressStreet,
    contactInfoAddressCity: row.contactInfoAddressCity,
    contactInfoAddressState: row.contactInfoAddressState,
    contactInfoAddressPostalCode: row.contactInfoAddressPostalCode,
    contactInfoAddressCountry: row.contactInfoAddressCountry,
    contactInfoPhoneNumbers: row.phones.map(toPhoneView),
    contactInfoEmails: row.emails.map(toEmailView),
    complianceOptOut: row.complianceOptOut,
    complianceConsentToCall: row.complianceConsentToCall,
    complianceConsentToWhatsapp: row.complianceConsentToWhatsapp,
    complianceConsentToEmail: row.complianceConsentToEmail,
    complianceConsentToSms: row.complianceConsentToSms,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
