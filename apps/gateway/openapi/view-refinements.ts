import {
  CALL_DIRECTIONS, CALL_STATUSES, CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES, DEBT_STATUSES, DEBTOR_STATUSES, IMPORT_STATUSES,
  ORGANIZATION_STATUSES, PAYMENT_METHODS, PHONE_OWNER_SOURCES, PHONE_OWNERS, PORTFOLIO_STATUSES, PROMISE_STATUSES, SCOPES,
  VERIFICATION_STATUSES,
} from '@dc/contracts';

type Schema = Record<string, unknown>;

/**
 * What the response views' TypeScript declarations cannot say and the document must (docs/adr/0030):
 * the closed value lists of their `status`-like fields, and which strings are timestamps. The
 * views stay `string` (the database hands text to api-core); the value lists are the very constants
 * the list filters and the database CHECKs use, so a new status is added in one place.
 *
 * Paths are `property`, `object.property` or `array[]` (its items). A path the view does not have,
 * or that is not a string there, fails the generation: the table cannot drift from the views.
 */
const dateTime = { format: 'date-time' } as const;
const oneOf = (values: readonly string[]) => ({ enum: [...values] });
/**
 * dueDate, issueDate, paymentDate, promiseDate, fulfillmentDate are text as loaded (spec, Common
 * value rules): a date, or a date with a time. No `format` fits both; say it in words.
 */
const loadedDate = { description: 'Date (`YYYY-MM-DD`) or date with time, as loaded; never assume a time part.', examples: ['2026-03-31'] };
const stamps = { createdAt: dateTime, updatedAt: dateTime };
const callFields = {
  ...stamps,
  status: oneOf(CALL_STATUSES),
  direction: oneOf(CALL_DIRECTIONS),
  connectedAt: dateTime,
  metricsStartTime: dateTime,
  metricsEndTime: dateTime,
};

export const VIEW_REFINEMENTS: Record<string, Record<string, Schema>> = {
  CallListItemView: callFields,
  CallView: callFields,
  CampaignView: { ...stamps, status: oneOf(CAMPAIGN_STATUSES), channel: oneOf(CAMPAIGN_CHANNELS), startsAt: dateTime, endsAt: dateTime },
  DebtorView: { ...stamps, status: oneOf(DEBTOR_STATUSES) },
  DebtorPhoneView: { owner: oneOf(PHONE_OWNERS), ownerSource: oneOf(PHONE_OWNER_SOURCES) },
  DebtorVerificationView: { status: oneOf(VERIFICATION_STATUSES) },
  PaymentRegisteredEventView: { createdAt: dateTime },
  PromiseCreatedEventView: { createdAt: dateTime },
  CallCompletedEventView: { createdAt: dateTime },
  DebtView: { ...stamps, status: oneOf(DEBT_STATUSES), dueDate: loadedDate, issueDate: loadedDate },
  ImportUploadView: { expiresAt: dateTime },
  ImportView: { ...stamps, startedAt: dateTime, finishedAt: dateTime },
  MeView: { 'apiKey.expiresAt': dateTime, 'apiKey.scopes[]': oneOf(SCOPES), 'organization.status': oneOf(ORGANIZATION_STATUSES) },
  PaymentView: { ...stamps, paymentMethod: oneOf(PAYMENT_METHODS), paymentDate: loadedDate },
  PortfolioView: { ...stamps, status: oneOf(PORTFOLIO_STATUSES), operatingInfoLastActivity: dateTime },
  PromiseView: { ...stamps, status: oneOf(PROMISE_STATUSES), promiseDate: loadedDate, fulfillmentDate: loadedDate },
};

/** Unions of the views that the document states as a `oneOf` with a discriminator, by property. */
export const DISCRIMINATED_UNIONS: Record<string, string> = { DebtorBatchResult: 'status', EventView: 'type' };

/** Applies VIEW_REFINEMENTS to the named schema in place (keeps `null` where the view allows it). */
export function refineView(name: string, schema: Schema): void {
  for (const [where, refinement] of Object.entries(VIEW_REFINEMENTS[name] ?? {})) {
    const target = walk(schema, where);
    const types = ([] as unknown[]).concat(target?.type);
    if (!target || !types.includes('string')) throw new Error(`${name}.${where}: no string property there to refine`);
    const nullable = types.includes('null');
    if (refinement.enum) target.enum = nullable ? [...(refinement.enum as unknown[]), null] : refinement.enum;
    Object.assign(target, { ...refinement, ...(target.enum ? { enum: target.enum } : {}) });
  }
  if (name === 'ImportView' && JSON.stringify(walk(schema, 'status')) !== JSON.stringify({ $ref: '#/components/schemas/ImportStatus' })) {
    throw new Error(`ImportView.status is no longer ImportStatus (${IMPORT_STATUSES.join(', ')})`);
  }
}

function walk(schema: Schema, where: string): Schema | undefined {
  let node: Schema | undefined = schema;
  for (const part of where.split('.')) {
    const isItems = part.endsWith('[]');
    node = (node?.properties as Record<string, Schema> | undefined)?.[isItems ? part.slice(0, -2) : part];
    if (isItems) node = node?.items as Schema | undefined;
  }
  return node;
}

/**
 * `anyOf` of object schemas (a TypeScript union) → `oneOf` with an OpenAPI discriminator mapping
 * each value of `property` (an enum or const in each member) to its member, so a generated client
 * narrows on it: after `status === "created"`, `id` is a string.
 */
export function discriminate(name: string, schema: Schema, property: string, all: Record<string, Schema>): Schema {
  const members = schema.anyOf as Schema[] | undefined;
  if (!members) throw new Error(`${name} is not a union: cannot discriminate it by ${property}`);
  const mapping: Record<string, string> = {};
  for (const member of members) {
    const ref = member.$ref as string | undefined;
    const target = ref ? all[ref.slice(ref.lastIndexOf('/') + 1)] : undefined;
    const values = ((target?.properties as Record<string, Schema> | undefined)?.[property]) as Schema | undefined;
    const list = (values?.enum as string[] | undefined) ?? (values?.const !== undefined ? [values.const as string] : undefined);
    if (!ref || !list) throw new Error(`${name}: every member must be a named type with ${property} as an enum or const`);
    for (const value of list) mapping[value] = ref;
  }
  const rest = Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'anyOf'));
  return { ...rest, oneOf: members, discriminator: { propertyName: property, mapping } };
}
