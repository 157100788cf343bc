import { randomUUID } from 'node:crypto';
import createOpenApiClient, { type Client, type Middleware } from 'openapi-fetch';
import { ApiError } from './api-error';
import { Paginator } from './paginate';
import { retryingFetch, type RetryOptions } from './retry';
import { rememberFetch } from './transport';
import type { DataMethod, HttpMethod, ListItem, ListPage, ListPath, ListQuery, Page, paths } from './types';

export interface ClientOptions {
  /** The API's server URL, `{base_url}/public` (e.g. https://api.example.com/public); paths start with /v1. */
  baseUrl: string;
  /** `svc_live_…` or `svc_test_…`, sent as `Authorization: Bearer`. */
  apiKey: string;
  /** The fetch to send with (default: the global fetch). Retries happen around it. */
  fetch?: (request: Request) => Promise<Response>;
  /** Automatic retries of 429, 503 and network errors (see RetryOptions); `{ maxRetries: 0 }` disables them. */
  retry?: RetryOptions;
  /** User-Agent of every request. */
  userAgent?: string;
}

/** Options of `paginate`: the list's filters and page size; the cursor is driven by the iterator. */
export interface PaginateOptions<P extends ListPath> {
  query?: ListQuery<P>;
  /** Resume from a `nextCursor` you kept. */
  cursor?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface DcClient {
  /**
   * The underlying openapi-fetch client, with the same authentication, idempotency and retries: its
   * methods answer `{ data, error, response }` instead of throwing. `api.use()` adds middleware.
   */
  readonly api: Client<paths>;
  /** GET: resolves with the success body, or throws ApiError. */
  readonly get: DataMethod<'get'>;
  /** POST (with a generated Idempotency-Key unless the call gives one): the success body, or throws ApiError. */
  readonly post: DataMethod<'post'>;
  readonly put: DataMethod<'put'>;
  readonly patch: DataMethod<'patch'>;
  readonly delete: DataMethod<'delete'>;
  /** Every item of a list, page after page: `for await (const d of client.paginate('/v1/debtors'))`. */
  paginate<P extends ListPath>(path: P, options?: PaginateOptions<P>): Paginator<ListItem<P>, ListPage<P> & Page<ListItem<P>>>;
}

/** Methods that change something: each call gets its own Idempotency-Key, reused by its retries. */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * The typed client of the public API (docs/adr/0029). Paths, parameters, bodies and answers are
 * the generated types of docs/openapi.json.
 *
 * ```ts
 * const dc = createClient({ baseUrl: 'https://api.example.com/public', apiKey: process.env.API_KEY! });
 * const me = await dc.get('/v1/me');
 * for await (const debtor of dc.paginate('/v1/debtors', { query: { status: ['active'] } })) { … }
 * ```
 */
export function createClient(options: ClientOptions): DcClient {
  if (!options.apiKey) throw new TypeError('createClient: apiKey is required');
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const api = createOpenApiClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: retryingFetch(baseFetch, options.retry),
    // The document's list filters are comma lists (`style: form, explode: false`): `status=a,b`.
    querySerializer: { array: { style: 'form', explode: false } },
  });
  api.use(requestHeaders(options.apiKey, options.userAgent ?? `dc-client node/${process.versions.node}`));

  // The request as sent (with its Idempotency-Key), for the error of its answer.
  const sentRequests = new WeakMap<Response, Request>();
  api.use({ onResponse: ({ request, response }) => void sentRequests.set(response, request) });

  // Typed from the outside by DataMethod; inside, one untyped path through openapi-fetch.
  const request = api.request as unknown as (method: string, path: string, init?: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const call = (method: Uppercase<HttpMethod>) => async (path: string, init?: unknown): Promise<unknown> => {
    const { data, error, response } = await request(method, path, init);
    if (!response.ok) throw ApiError.fromResponse(response, error, sentRequests.get(response));
    return data;
  };

  const get = call('GET');
  const client: DcClient = {
    api,
    get: get as DataMethod<'get'>,
    post: call('POST') as DataMethod<'post'>,
    put: call('PUT') as DataMethod<'put'>,
    patch: call('PATCH') as DataMethod<'patch'>,
    delete: call('DELETE') as DataMethod<'delete'>,
    paginate<P extends ListPath>(path: P, paginate: PaginateOptions<P> = {}) {
      type P1 = ListPage<P> & Page<ListItem<P>>;
      const fetchPage = (cursor: string | undefined) =>
        get(path, {
          params: { query: { ...(paginate.query as object), ...(cursor === undefined ? {} : { cursor }) } },
          headers: paginate.headers,
          signal: paginate.signal,
        }) as Promise<P1>;
      return new Paginator<ListItem<P>, P1>(fetchPage, paginate.cursor);
    },
  };
  // For requests outside the API (importsOf: the upload to a signed URL), through the same fetch.
  rememberFetch(client, baseFetch);
  return client;
}

/** Authorization, User-Agent, and an Idempotency-Key on every write that does not bring its own. */
function requestHeaders(apiKey: string, userAgent: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${apiKey}`);
      request.headers.set('user-agent', userAgent);
      // An explicit key wins, even an empty one (the API's "no key").
      if (WRITE_METHODS.has(request.method) && !request.headers.has(IDEMPOTENCY_KEY_HEADER)) {
        request.headers.set(IDEMPOTENCY_KEY_HEADER, randomUUID());
      }
      return request;
    },
  };
}
