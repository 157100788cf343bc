import { SetMetadata } from '@nestjs/common';

export const API_DOC = 'dc:api-doc';

export interface ApiDocOptions {
  summary: string;
  description?: string;
  /** Name of the exported type in libs/contracts describing `data` (or each list item). */
  returns: string;
  list?: boolean;
  /** What the contract's `alsoStatus` mean (e.g. 200 for an identical retry of a 201); the generator checks both list the same. */
  alsoStatus?: { status: number; description: string }[];
  /** Extra error codes this route can answer, beyond the ones derived from its policies. */
  errors?: string[];
}

/** What the OpenAPI generator (apps/gateway/openapi) needs beyond @PublicRoute's policies. */
export const ApiDoc = (options: ApiDocOptions) => SetMetadata(API_DOC, options);
