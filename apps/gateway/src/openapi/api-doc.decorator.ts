import { SetMetadata } from '@nestjs/common';

export const API_DOC = 'dc:api-doc';

export interface ApiDocOptions {
  summary: string;
  description?: string;
  /** Name of the exported type in libs/contracts describing `data` (or each list item). */
  returns: string;
  list?: boolean;
  /** Other success statuses with the same body (e.g. 200 for an idempotent retry of a 201). */
  alsoStatus?: { status: number; description: string }[];
  /** Extra error codes this route can answer, beyond the ones derived from its policies. */
  errors?: string[];
}

/** What the OpenAPI generator needs beyond Nest's own route metadata. */
export const ApiDoc = (options: ApiDocOptions) => SetMetadata(API_DOC, options);
