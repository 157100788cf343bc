import type { FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import type { components, paths, webhooks } from './generated/openapi';

/**
 * Types derived from the generated document types (generated/openapi.d.ts) by shape, not by name, so
 * a new list endpoint or webhook event is picked up by regenerating, with no edit here.
 */

export type { components, paths, webhooks };

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
type MediaType = `${string}/${string}`;

/** The paths that have an operation for `method`. */
export type PathsWithMethod<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: unknown } ? P : never;
}[keyof paths];

type RequiredKeysOf<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** openapi-fetch's rule: the options argument is required only when the operation has required parameters or a body. */
type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** The options of a call to `path` with `method` (params, body, headers, signal, …). */
export type RequestInitFor<M extends HttpMethod, P extends PathsWithMethod<M>> = MaybeOptionalInit<paths[P], M>;

/** The success body of a call (throws ApiError otherwise). */
export type ResponseData<M extends HttpMethod, P extends PathsWithMethod<M>, Init = object> = NonNullable<
  FetchResponse<paths[P][M] & Record<string | number, any>, Init, MediaType>['data']
>;

/** A method that resolves with the success body or throws ApiError. */
export type DataMethod<M extends HttpMethod> = <P extends PathsWithMethod<M>, Init extends RequestInitFor<M, P>>(
  path: P,
  ...init: InitParam<Init>
) => Promise<ResponseData<M, P, Init>>;

type JsonOk<Op> = Op extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;

/** A page of any list: `{data: [...], pagination: {...}}` (Pagination in the document). */
export interface Page<Item> {
  data: Item[];
  pagination: { hasMore: boolean; limit: number; nextCursor: string | null };
}

/** The GET paths that answer a page (cursor pagination). */
export type ListPath = {
  [P in PathsWithMethod<'get'>]: JsonOk<paths[P]['get']> extends { data: unknown[]; pagination: { hasMore: boolean } } ? P : never;
}[PathsWithMethod<'get'>];

/** One page of `path`, as the document describes it. */
export type ListPage<P extends ListPath> = JsonOk<paths[P]['get']>;
/** One item of `path`'s pages. */
export type ListItem<P extends ListPath> = ListPage<P> extends { data: (infer Item)[] } ? Item : never;
/** The query of a list without its cursor, which the iterator drives. */
export type ListQuery<P extends ListPath> = paths[P]['get'] extends { parameters: { query?: infer Q } } ? Omit<NonNullable<Q>, 'cursor'> : never;

/** The error envelope of every 4xx and 5xx answer. */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
/** The closed list of error codes (spec: Errors). */
export type ErrorCode = ErrorEnvelope['error']['code'];
/** One entry of `issues` (validation errors). */
export type ErrorIssue = NonNullable<ErrorEnvelope['error']['issues']>[number];

type WebhookBody<Op> = Op extends { requestBody?: infer RequestBody }
  ? NonNullable<RequestBody> extends { content: { 'application/json': infer Body } }
    ? Body
    : never
  : never;

/** A webhook delivery body, a union discriminated by `type` (the document's `webhooks`). */
export type WebhookEvent = { [K in keyof webhooks]: WebhookBody<webhooks[K]['post']> }[keyof webhooks];
export type WebhookEventType = WebhookEvent['type'];
/** The event of one kind, e.g. `WebhookEventOf<'payment.registered'>`. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;
