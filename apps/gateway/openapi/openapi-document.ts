import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DEFAULT_IDEMPOTENCY_MAX_BYTES, DEFAULT_IDEMPOTENCY_MAX_RECORDS } from '@dc/config';
import { ERROR_CODES, ERROR_HTTP_STATUS, ErrorCode, Header } from '@dc/contracts';
import { API_DOC, ApiDocOptions } from '../src/routes/api-doc.decorator';
import { PUBLIC_ROUTE, PublicRouteOptions } from '../src/routes/public-route.options';

type Schema = Record<string, unknown>;
type Controller = new (...args: never[]) => unknown;

export interface SchemaSource {
  /** JSON schema of an exported contracts type (interfaces and DTO classes), refs under components. */
  typeSchema(name: string): Schema;
  /** Constraint-aware schema of a class-validator DTO. */
  dtoSchema(name: string, options?: { collect?: boolean }): Schema;
  /** Every schema the two produced, for components.schemas. */
  all(): Record<string, Schema>;
}

export interface WebhookDoc {
  event: string;
  summary: string;
  dataType: string;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const LIMIT_SCHEMA = { type: 'integer', minimum: 1, maximum: 100, default: 50 };
const LIMIT_DESCRIPTION = 'Page size, 1 to 100. The API is lenient: 0 or negative gives 50, above 100 is cut to 100; a value that is not an integer is 400.';
const COMMA_LIST_DESCRIPTION =
  'One value or several, comma-separated (`a,b`); repeating the parameter is accepted too. An unknown value is 400 naming the allowed ones.';

/** One line per tag (a controller), shown above its endpoints; a tag without one fails the generation. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Calls: 'Voice contact attempts on debtors. Lists omit `analysis`; the by-id read carries it once the call is analysed (null before).',
  Campaigns: 'Collection efforts over debtors of a portfolio, with aggregate metrics of their calls and promises.',
  'Debtor Batch': 'Create or update up to 500 debtors with their debts in one request, matched by externalId. Scope `write`.',
  Debtors: 'The people or companies that owe, with phones, emails and compliance flags.',
  Debts: 'Amounts owed, with currency, dates and a status derived from the amounts.',
  Events: 'Every payment.registered, promise.created and call.completed of at least the last 30 days, as webhooks carry them: resume with `after` the last id processed to recover what a receiver missed.',
  Imports: 'Load a whole portfolio from a CSV file: get an upload URL, upload, enqueue, then poll. Scope `write`.',
  Me: 'The identity of the API key in use and its organization.',
  Payments: 'Payments recorded against debtors; register one with an externalId that makes retries safe.',
  Portfolios: 'The units a key can see: each has its currencies, region and time zone; everything else hangs from one.',
  Promises: 'Promises of payment taken in calls or entered manually (list only).',
};
const METHOD_NAMES: Partial<Record<RequestMethod, string>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.DELETE]: 'delete',
};

/** Builds the OpenAPI 3.1 document of the public API from the controllers' @PublicRoute metadata. */
export function buildOpenApiDocument(options: {
  version: string;
  controllers: Controller[];
  schemas: SchemaSource;
  webhooks: WebhookDoc[];
  /** Markdown of info.description: the guides (guides.ts). */
  description: string;
}): Schema {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const controller of options.controllers) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const proto = controller.prototype as Record<string, object>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = proto[name];
      const doc = Reflect.getMetadata(API_DOC, handler) as ApiDocOptions | undefined;
      if (name === 'constructor' || !doc) continue;
      const route = joinPath(base, String(Reflect.getMetadata(PATH_METADATA, handler)));
      const method = METHOD_NAMES[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      if (!method) throw new Error(`${controller.name}.${name}: an HTTP method the document does not describe`);
      (paths[route.openapi] ??= {})[method] = operation(controller, name, handler, doc, route.params, options.schemas);
    }
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Debt-collection public API',
      version: options.version,
      description: options.description,
    },
    servers: [{ url: '{base_url}/public', variables: { base_url: { default: 'http://localhost:3000' } } }],
    security: [{ apiKey: [] }],
    tags: [...new Set(Object.values(paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags as string[])))].sort().map((name) => {
      if (!TAG_DESCRIPTIONS[name]) throw new Error(`tag ${name} has no description in TAG_DESCRIPTIONS`);
      return { name, description: TAG_DESCRIPTIONS[name] };
    }),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    webhooks: Object.fromEntries(options.webhooks.map((w) => [w.event, webhookOperation(w)])),
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'API key `svc_live_…` or `svc_test_…` (43 characters after the stage). Verified against a cache of up to 60 s.',
        },
      },
      schemas: {
        ...sortKeys(options.schemas.all()),
        ErrorEnvelope: errorEnvelopeSchema(),
        PlatformTooLarge: {
          type: 'object',
          required: ['Message'],
          additionalProperties: false,
          properties: { Message: { type: 'string', description: 'e.g. "Request must be smaller than 6291456 bytes for the API"' } },
          description: 'The platform refusal of a body over 6 MB; the only error outside the envelope.',
        },
        Pagination: {
          type: 'object',
          required: ['hasMore', 'limit', 'nextCursor'],
          properties: {
            hasMore: { type: 'boolean', description: 'More items may follow: read on with nextCursor. A page may hold fewer than limit items, even none, and still have more.' },
            limit: { type: 'integer', minimum: 1, maximum: 100 },
            nextCursor: { type: ['string', 'null'], description: 'Send back exactly as received; null when hasMore is false.' },
          },
        },
      },
      headers: {
        RequestId: { description: 'Identifies the request; also in error bodies.', required: true, schema: { type: 'string', pattern: '^\\S+$' } },
        RateLimitLimit: { description: 'Units per clock minute for this key.', schema: { type: 'integer' } },
        RateLimitRemaining: { description: 'Units left in the current window, after this request.', schema: { type: 'integer' } },
        RateLimitReset: { description: 'Unix time (s) at which the window resets.', schema: { type: 'integer' } },
        RateLimitPolicy: { description: 'IETF draft field, e.g. `"per-key";q=300;w=60`.', schema: { type: 'string' } },
        RateLimit: { description: 'IETF draft field, e.g. `"per-key";r=299;t=42`.', schema: { type: 'string' } },
        RetryAfter: { description: 'Seconds until a retry may succeed.', schema: { type: 'integer', minimum: 0 } },
        RetryAfterRequired: { description: 'Seconds until the next window.', required: true, schema: { type: 'integer', minimum: 0 } },
        IdempotentReplayed: { description: '`true` when the response is a replay of a stored one.', schema: { type: 'string', enum: ['true'] } },
      },
      responses: {
        ...Object.fromEntries(ERROR_CODES.map((code) => [errorResponseName(code), errorResponse(code)])),
        PlatformTooLarge: {
          description: '413: body over 6 MB, refused by the platform before parsing, with `{Message}` only (no envelope)',
          headers: { [Header.RequestId]: { $ref: '#/components/headers/RequestId' } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/PlatformTooLarge' } } },
        },
      },
    },
  };
}

function operation(
  controller: Controller,
  name: string,
  handler: object,
  doc: ApiDocOptions,
  pathParams: string[],
  schemas: SchemaSource,
): Schema {
  const route = Reflect.getMetadata(PUBLIC_ROUTE, handler) as PublicRouteOptions | undefined;
  if (!route) throw new Error(`${controller.name}.${name} is documented but has no @PublicRoute`);
  const scope = route.scope;
  const status = route.rpc.status;
  const idempotent = route.idempotent === true;
  const weighted = route.cost !== undefined;
  // The other success statuses are the contract's; the doc only describes them.
  const contractAlso = 'alsoStatus' in route.rpc ? [...route.rpc.alsoStatus].sort((a, b) => a - b) : [];
  const documentedAlso = (doc.alsoStatus ?? []).map((s) => s.status).sort((a, b) => a - b);
  if (contractAlso.join() !== documentedAlso.join()) {
    throw new Error(`${controller.name}.${name}: doc.alsoStatus [${documentedAlso}] differs from its contract's alsoStatus [${contractAlso}]`);
  }
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, { index: number; data?: string }>;
  const paramTypes = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, name) ?? []) as { name: string }[];
  const argOf = (type: RouteParamtypes) => Object.entries(args).find(([key]) => key.startsWith(`${type}:`))?.[1];

  const parameters: Schema[] = pathParams.map((p) => ({
    name: p,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: 'Opaque identifier. A malformed one answers 404, like a missing one.',
  }));
  const query = argOf(RouteParamtypes.QUERY);
  if (query) {
    const dto = schemas.dtoSchema(paramTypes[query.index].name, { collect: false }) as { properties?: Record<string, Schema> };
    for (const [prop, schema] of Object.entries(dto.properties ?? {})) {
      if (prop === 'limit') parameters.push({ name: prop, in: 'query', required: false, description: LIMIT_DESCRIPTION, schema: LIMIT_SCHEMA });
      else if (schema.type === 'array') {
        // A comma list (`status=a,b`): without explode false, validators read it as one unknown value.
        parameters.push({ name: prop, in: 'query', required: false, style: 'form', explode: false, description: COMMA_LIST_DESCRIPTION, schema });
      } else parameters.push({ name: prop, in: 'query', required: false, schema });
    }
  }
  if (idempotent) {
    parameters.push({
      name: Header.IdempotencyKey,
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
      description:
        'Replays the stored 2xx response for 24 h (per API key); another body or portfolio with the same key: 409. ' +
        `Each API key keeps its newest ${DEFAULT_IDEMPOTENCY_MAX_RECORDS.toLocaleString('en')} records and ${DEFAULT_IDEMPOTENCY_MAX_BYTES / 1024 / 1024} MiB of them: ` +
        'past either, its own oldest are dropped first, and a retry with a dropped key runs again. Even at the full rate limit the last ~16 minutes replay.',
    });
  }
  const body = argOf(RouteParamtypes.BODY);
  // 400 on every route: a body that is not JSON (or not UTF-8, or nested too deep) and a NUL or
  // lone surrogate in any query value are refused wherever they are sent (found by the fuzz suite).
  const errors = new Set<string>([
    ErrorCode.ValidationError,
    ErrorCode.Unauthorized,
    ErrorCode.OrganizationInactive,
    ErrorCode.RateLimited,
    ErrorCode.RequestTimeout,
    ErrorCode.InternalError,
    ErrorCode.ServiceUnavailable,
  ]);
  if (scope === 'write') errors.add(ErrorCode.Forbidden);
  if (pathParams.length) errors.add(ErrorCode.NotFound);
  if (idempotent) errors.add(ErrorCode.IdempotencyConflict);
  for (const code of doc.errors ?? []) errors.add(code);

  const successHeaders = {
    [Header.RequestId]: { $ref: '#/components/headers/RequestId' },
    [Header.RateLimitLimit]: { $ref: '#/components/headers/RateLimitLimit' },
    [Header.RateLimitRemaining]: { $ref: '#/components/headers/RateLimitRemaining' },
    [Header.RateLimitReset]: { $ref: '#/components/headers/RateLimitReset' },
    [Header.RateLimitPolicy]: { $ref: '#/components/headers/RateLimitPolicy' },
    [Header.RateLimit]: { $ref: '#/components/headers/RateLimit' },
    ...(idempotent ? { [Header.IdempotentReplayed]: { $ref: '#/components/headers/IdempotentReplayed' } } : {}),
  };
  const success = successResponse(doc, schemas, successHeaders);
  return {
    operationId: `${lowerFirst(controller.name.replace(/Controller$/, ''))}.${name}`,
    summary: doc.summary,
    description: [
      doc.description,
      `Requires scope \`${scope}\`.`,
      weighted ? 'Rate cost: 1 unit per 50 items of the batch, rounded up, minimum 1.' : 'Rate cost: 1 unit.',
    ]
      .filter(Boolean)
      .join('\n\n'),
    tags: [tagOf(controller)],
    parameters,
    ...(body ? { requestBody: requestBody(schemas, paramTypes[body.index].name) } : {}),
    responses: {
      [String(status)]: { description: doc.media ? doc.media.description : 'Success', ...success },
      ...Object.fromEntries((doc.alsoStatus ?? []).map((s) => [String(s.status), { description: s.description, ...success }])),
      ...errorResponses([...errors] as ErrorCode[]),
      ...platformTooLarge(errors.has(ErrorCode.PayloadTooLarge)),
    },
  };
}

/**
 * Headers and content of a success: the JSON envelope `{data}` of `doc.returns` (`{data,
 * pagination}` for a list), or, for a route answering a file (`doc.media`, e.g. text/csv), a string
 * body in that media type with its Content-Disposition. Errors stay in the JSON envelope either way.
 */
function successResponse(doc: ApiDocOptions, schemas: SchemaSource, successHeaders: Record<string, Schema>): { headers: Record<string, Schema>; content: Schema } {
  if (doc.media) {
    return {
      headers: {
        ...successHeaders,
        'Content-Disposition': {
          description: '`attachment; filename="…"`: the body is a file to save, under that name.',
          required: true,
          schema: { type: 'string' },
        },
      },
      content: { [doc.media.type]: { schema: { type: 'string' } } },
    };
  }
  schemas.typeSchema(doc.returns);
  const data = doc.list
    ? { type: 'object', required: ['data', 'pagination'], properties: { data: { type: 'array', items: ref(doc.returns) }, pagination: ref('Pagination') } }
    : { type: 'object', required: ['data'], properties: { data: ref(doc.returns) } };
  return { headers: successHeaders, content: { 'application/json': { schema: data } } };
}

/**
 * Any request with a body over 6 MB is refused by the platform with a bare `{Message}` (spec,
 * Errors rule 2); on the debtor batch 413 is also `payload_too_large` in the envelope.
 */
function platformTooLarge(alsoEnvelope: boolean): Record<string, Schema> {
  if (!alsoEnvelope) return { '413': { $ref: '#/components/responses/PlatformTooLarge' } };
  return {
    '413': {
      description: '413 payload_too_large in the envelope (over 5 MB or 500 items), or the platform refusal of a body over 6 MB: `{Message}` only',
      headers: { [Header.RequestId]: { $ref: '#/components/headers/RequestId' } },
      content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }, { $ref: '#/components/schemas/PlatformTooLarge' }] } } },
    },
  };
}

/** One response per HTTP status; statuses shared by several codes (403) list them all. */
function errorResponses(codes: ErrorCode[]): Record<string, Schema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_HTTP_STATUS[code], [...(byStatus.get(ERROR_HTTP_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        list.length === 1
          ? { $ref: `#/components/responses/${errorResponseName(list[0])}` }
          : {
              description: `${status}: ${list.join(' or ')}`,
              headers: { [Header.RequestId]: { $ref: '#/components/headers/RequestId' } },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
            },
      ]),
  );
}

/** A body whose DTO requires no field may be left out (the validation pipe reads a missing body as {}). */
function requestBody(schemas: SchemaSource, name: string): Schema {
  const required = ((schemas.dtoSchema(name, { collect: false }).required as string[] | undefined) ?? []).length > 0;
  return { required, content: { 'application/json': { schema: refDto(schemas, name) } } };
}

function refDto(schemas: SchemaSource, name: string): Schema {
  schemas.dtoSchema(name);
  return ref(name);
}

/** How every delivery is signed and retried (docs/adr/0020); the same text for each event kind. */
const WEBHOOK_DESCRIPTION = [
  'Signed with `X-Service-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with the UTF-8 ' +
    'bytes of the whole secret string, `whsec_` included (the scheme of Stripe\'s verifiers, which accept this header as is). ' +
    'Verify over the raw bytes before parsing, compare in constant time, reject when t is more than ~5 minutes away; `t` is ' +
    'fresh on every attempt. While a secret rotation\'s overlap lasts the header carries one `v1` per secret ' +
    '(`t=<t>,v1=<new>,v1=<old>`): accept the delivery when any `v1` matches the secret you hold.',
  '`X-Service-Event` names the event kind (also the body\'s `type`).',
  'Webhooks registered with Standard Webhooks headers also carry `webhook-id` (the delivery id), `webhook-timestamp` (the same ' +
    't) and `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<t>.<raw body>">` keyed with the 32 bytes obtained by ' +
    'base64-decoding the 43 characters after `whsec_` — what the standardwebhooks libraries do with the same secret; during a ' +
    'rotation\'s overlap, one space-separated `v1,<base64>` per secret.',
  'Any 2xx answer within 10 s is success; redirects are not followed (a 3xx is a failure). A failed delivery is attempted 5 times in ' +
    'total, about 90 s apart, then marked failed. Every attempt carries the same `id`: deduplicate on it. `eventId` names the ' +
    'event, the same on every delivery of it to every webhook.',
].join('\n\n');

function webhookOperation(w: WebhookDoc): Schema {
  const header = (name: string, required: boolean, description: string) => ({ name, in: 'header', required, description, schema: { type: 'string' } });
  return {
    post: {
      operationId: `webhook.${w.event}`,
      summary: w.summary,
      description: WEBHOOK_DESCRIPTION,
      parameters: [
        header('X-Service-Signature', true, '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; one `v1` per secret during a rotation\'s overlap.'),
        { ...header('X-Service-Event', true, 'The event kind.'), schema: { type: 'string', enum: [w.event] } },
        header('webhook-id', false, 'Standard Webhooks (opt-in per webhook): the delivery id.'),
        header('webhook-timestamp', false, 'Standard Webhooks (opt-in per webhook): unix seconds, the same t.'),
        header('webhook-signature', false, 'Standard Webhooks (opt-in per webhook): `v1,<base64 signature>`, space-separated, one per secret during a rotation\'s overlap.'),
      ],
      requestBody: {
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['id', 'eventId', 'type', 'createdAt', 'livemode', 'data'],
              properties: {
                id: { type: 'string', description: 'Delivery id (`dlv_…`, not the resource id); the same on every attempt.' },
                eventId: {
                  type: 'string',
                  description: 'Event id (`evt_…`): the same on every delivery of this event, to every webhook (since 1.8.0).',
                },
                type: { type: 'string', enum: [w.event], description: 'The event kind.' },
                createdAt: { type: 'string', format: 'date-time', description: 'When the event happened (the change was committed).' },
                livemode: { type: 'boolean', description: 'false for sandbox organizations.' },
                data: ref(w.dataType),
              },
            },
          },
        },
      },
      responses: { '2XX': { description: 'Delivered. Anything else, or no answer within 10 s, is retried (5 attempts, ~90 s apart).' } },
    },
  };
}

function errorEnvelopeSchema(): Schema {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message', 'requestId'],
        properties: {
          code: { type: 'string', enum: [...ERROR_CODES] },
          message: { type: 'string', description: 'English, for humans; do not branch on it.' },
          requestId: { type: 'string' },
          issues: {
            type: 'array',
            items: { type: 'object', required: ['message', 'path'], properties: { message: { type: 'string' }, path: { type: 'string' } } },
          },
        },
      },
    },
  };
}

const errorResponseName = (code: string) => `Error_${code}`;

function errorResponse(code: ErrorCode): Schema {
  return {
    description: `${ERROR_HTTP_STATUS[code]} ${code}`,
    headers: {
      [Header.RequestId]: { $ref: '#/components/headers/RequestId' },
      ...(code === ErrorCode.RateLimited ? { [Header.RetryAfter]: { $ref: '#/components/headers/RetryAfterRequired' } } : {}),
      ...(code === ErrorCode.ServiceUnavailable ? { [Header.RetryAfter]: { $ref: '#/components/headers/RetryAfter' } } : {}),
    },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
  };
}

function joinPath(base: string, sub: string): { openapi: string; params: string[] } {
  const parts = ['v1', ...`${base}/${sub}`.split('/').filter(Boolean)];
  const params = parts.filter((p) => p.startsWith(':')).map((p) => p.slice(1));
  return { openapi: `/${parts.map((p) => (p.startsWith(':') ? `{${p.slice(1)}}` : p)).join('/')}`, params };
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const tagOf = (controller: Controller) => controller.name.replace(/Controller$/, '').replace(/([a-z])([A-Z])/g, '$1 $2');

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
