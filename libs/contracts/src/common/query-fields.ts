import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, MaxLength, registerDecorator } from 'class-validator';
import { decodeCursor } from '../pagination';
import { parseInstantBound } from '../validation/instant-bound';

/**
 * The decorators of list query fields, one per kind, so every list parses its query the same way and
 * api-core receives decoded values: the cursor as the id the page starts after, `from`/`to` instants
 * as ISO strings. Nothing is decoded twice and a bad value never costs a hop to api-core.
 */

/** Applies decorators as if stacked above the property: the last one first, as TypeScript does. */
function apply(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => [...decorators].reverse().forEach((decorate) => decorate(target, key));
}

function satisfies(name: string, message: string, test: (value: unknown) => boolean): PropertyDecorator {
  return (target, key) =>
    registerDecorator({ name, target: target.constructor, propertyName: String(key), options: { message }, validator: { validate: test } });
}

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

/** One or several allowed values (spec list rule 5): an unknown one is a 400 naming the parameter and the allowed values. */
export function CommaListOf(allowed: readonly string[]): PropertyDecorator {
  return apply(
    IsOptional(),
    Transform(({ value }) => parseCommaList(value)),
    IsIn(allowed, { each: true, message: `$property must be one or more of: ${allowed.join(', ')} (comma-separated)` }),
  );
}

export const ID_FILTER_MESSAGE = (name: string) => `${name} must be a single id`;

/**
 * An id filter (portfolioId, debtorId, campaignId): one opaque string. A malformed id matches
 * nothing, like a missing one — the same rule as ids in paths, which answer 404 without a hop.
 */
export function IdFilter(): PropertyDecorator {
  return apply(IsOptional(), IsString({ message: '$property must be a single id' }), MaxLength(64, { message: '$property must be a single id' }));
}

const CURSOR_TOO_LONG = 200;

/**
 * The opaque `cursor` of a list, decoded at the edge: after validation it holds the id the page
 * starts after. A cursor we did not issue is 400 `cursor is not valid`.
 */
export function PageCursor(): PropertyDecorator {
  const invalid = Symbol('invalid cursor');
  return apply(
    IsOptional(),
    Transform(({ value }) => (typeof value === 'string' && value.length <= CURSOR_TOO_LONG ? (decodeCursor(value) ?? invalid) : invalid)),
    satisfies('isPageCursor', 'cursor is not valid', (value) => typeof value === 'string'),
  );
}

/**
 * `from`/`to` bounding an instant (spec list rule 7): an ISO 8601 date or date-time, decoded at the
 * edge to the ISO string of the instant it stands for (see parseInstantBound).
 */
export function InstantBound(bound: 'from' | 'to'): PropertyDecorator {
  return apply(
    IsOptional(),
    Transform(({ value }) => parseInstantBound(value, bound)?.toISOString() ?? value),
    satisfies('isInstantBound', `$property must be an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDThh:mm:ssZ)`, (value) =>
      typeof value === 'string' && parseInstantBound(value, bound) !== null,
    ),
  );
}
