import { SetMetadata } from '@nestjs/common';

export const API_DOC = 'dc:api-doc';

interface ApiDocBase {
  summary: string;
  description?: string;
  /** What the contract's `alsoStatus` mean (e.g. 200 for an identical retry of a 201); the generator checks both list the same. */
  alsoStatus?: { status: number; description: string }[];
  /** Extra error codes this route can answer, beyond the ones derived from its policies. */
  errors?: string[];
}

/** A success answered in the JSON envelope: `{data}` (or `{data, pagination}` when `list`). */
export interface JsonApiDoc extends ApiDocBase {
  /** Name of the exported type in libs/contracts describing `data` (or each list item). */
  returns: string;
  list?: boolean;
  media?: never;
}

/** Media types a success may be answered in instead of JSON (errors stay in the JSON envelope). */
export type ApiDocMediaType = 'text/csv';

/**
 * A success answered as a file in another media type (e.g. a CSV download): no `{data}` envelope,
 * so no `returns` nor `list`. Documented as a string body with a Content-Disposition header.
 */
export interface MediaApiDoc extends ApiDocBase {
  media: { type: ApiDocMediaType; description: string };
  returns?: never;
  list?: never;
}

/** Exactly one of `returns` (JSON) or `media` (a file): a route with neither, or both, does not compile. */
export type ApiDocOptions = JsonApiDoc | MediaApiDoc;

/** What the OpenAPI generator (apps/gateway/openapi) needs beyond @PublicRoute's policies. */
export const ApiDoc = (options: ApiDocOptions) => SetMetadata(API_DOC, options);
