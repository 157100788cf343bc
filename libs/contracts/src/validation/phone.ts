import { parsePhoneNumberFromString } from 'libphonenumber-js';

const E164 = /^\+[1-9]\d{8,14}$/;

/**
 * E.164 per the spec: a +, a country code not starting with 0, 9 to 15 digits in total. Spaces,
 * dots, dashes and parentheses are tolerated and stripped; libphonenumber-js gives the canonical
 * form (so "+34 600 11 22 33" and "+34600112233" are the same number). Validity against the
 * numbering plan is NOT required: the spec's rule is only the shape. Shared by the debtor batch and
 * the CSV importer, so both accept and refuse the same numbers.
 */
export function normalisePhone(raw: string): string | null {
  const compact = raw.replace(/[\s().-]/g, '');
  if (!E164.test(compact)) return null;
  const canonical = parsePhoneNumberFromString(compact)?.number;
  return canonical && E164.test(canonical) ? canonical : compact;
}
