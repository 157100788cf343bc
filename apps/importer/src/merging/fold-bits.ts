/**
 * Bits of `import_rows.present` (which optional fields a row fills) and of the merge plan's `take`
 * (which of them a row provides to the final write). Several rows of one debtor, or of one debt, in a
 * chunk are folded into one INSERT or UPDATE, exactly as if the rows had been applied one after the
 * other: required fields from the last row, each optional field from the last row that fills it
 * (a later empty cell keeps the earlier value), phones and emails from the last row that has any.
 */
export const Bit = {
  // Debtor
  identity: 1 << 0, // first name, document type and number: always present, taken from the last row
  lastName: 1 << 1,
  entityType: 1 << 2,
  contactName: 1 << 3,
  street: 1 << 4,
  city: 1 << 5,
  state: 1 << 6,
  postalCode: 1 << 7,
  country: 1 << 8,
  optOut: 1 << 9,
  consentToCall: 1 << 10,
  consentToWhatsapp: 1 << 11,
  consentToEmail: 1 << 12,
  consentToSms: 1 << 13,
  phones: 1 << 14,
  emails: 1 << 15,
  externalId: 1 << 16, // taken only by the row that creates the debtor: a debtor's external id never changes
  // Debt
  snapshot: 1 << 20, // total, paid and currency: always present on a debt row, taken from the last row
  dueDate: 1 << 21,
  issueDate: 1 << 22,
  description: 1 << 23,
  debtType: 1 << 24,
} as const;

/** Optional debtor fields: each taken from the last row of the debtor that fills it. */
export const DEBTOR_OPTIONAL_BITS = [
  Bit.lastName, Bit.entityType, Bit.contactName, Bit.street, Bit.city, Bit.state, Bit.postalCode, Bit.country,
  Bit.optOut, Bit.consentToCall, Bit.consentToWhatsapp, Bit.consentToEmail, Bit.consentToSms, Bit.phones, Bit.emails,
] as const;

/** Optional debt fields: each taken from the last row of the debt that fills it. */
export const DEBT_OPTIONAL_BITS = [Bit.dueDate, Bit.issueDate, Bit.description, Bit.debtType] as const;
