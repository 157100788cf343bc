import { generateApiKey } from '@dc/contracts';
import fc, { Arbitrary } from 'fast-check';
import { OPERATOR_TOKEN } from '../stack';
import { JsonSchema, OpenApiContract, Operation, Parameter, PLATFORM_LIMIT_BYTES } from './openapi-contract';

/** What the fuzzer knows of the tenant it runs as: its keys and the ids of rows it can reach. */
export interface FuzzTenant {
  /** read + write key. */
  writeKey: string;
  readKey: string;
  ids: { portfolios: string[]; debtors: string[]; debts: string[]; calls: string[]; campaigns: string[]; payments: string[] };
  /** The currency of the debts created for it. */
  currency: string;
}

/**
 * One generated request. Bodies are built when sent (`body()`), so that sampling 10,000 requests
 * keeps only their recipes in memory, not their megabytes.
 */
export interface FuzzRequest {
  /** Family of the input (valid, boundary, or the hostile technique): the table's rows. */
  kind: string;
  /**
   * The operation aimed at; undefined for an undocumented method on a documented path, and for
   * the operator listener (not in the document: only the envelope, no 5xx and survival are checked).
   */
  operation?: Operation;
  listener: 'public' | 'operator';
  method: string;
  /** Path under the listener, with the query string (already encoded as sent). */
  path: string;
  headers: Record<string, string>;
  body?: () => Buffer;
  /** Sends only a part of the body, then hangs up: no answer is expected, only survival. */
  abort?: boolean;
}

const BASE = '/public';
const IDEMPOTENCY_KEYS = ['fuzz-idem-1', 'fuzz-idem-2', 'fuzz-idem-3'];

/** Raw JSON text spliced into a body where a placeholder string stands (huge numbers, etc.). */
class Raw {
  constructor(readonly text: string) {}
}

/** JSON.stringify with `Raw` values written verbatim. */
function toJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof Raw) {
      raws.push(v.text);
      return `\u0001RAW${raws.length - 1}\u0001`;
    }
    return v;
  });
  return text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_m, i: string) => raws[Number(i)]);
}

/** `[[[…"\u0000"…]]]` or `{"a":{"a":…1…}}` built as text: no recursion anywhere. */
export function deepJson(depth: number, container: 'array' | 'object', leaf = '1'): string {
  return container === 'array' ? '['.repeat(depth) + leaf + ']'.repeat(depth) : '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
}

// ---------------------------------------------------------------- valid values from a schema

const idPools: Record<string, keyof FuzzTenant['ids']> = {
  portfolioId: 'portfolios',
  debtorId: 'debtors',
  debtId: 'debts',
  campaignId: 'campaigns',
};

const isoDate = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true });
const text = (min: number, max: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength: min, maxLength: max, unit: 'grapheme-ascii' }) },
    { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: max, unit: 'grapheme-composite' }) },
  );

/** A value valid against `schema` (bounded sizes; ids, dates, amounts and currencies that make sense). */
export function validValue(contract: OpenApiContract, schema: JsonSchema, tenant: FuzzTenant, name = ''): Arbitrary<unknown> {
  const s = contract.resolve<JsonSchema>(schema);
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string': {
      const pool = idPools[name];
      if (pool && tenant.ids[pool].length) return fc.constantFrom(...tenant.ids[pool]);
      if (/Date$/.test(name)) return isoDate.map((d) => d.toISOString().slice(0, 10));
      if (name === 'currency') return fc.constant(tenant.currency);
      if (s.format === 'email') return fc.emailAddress().filter((e) => e.length <= (s.maxLength ?? 254));
      if (s.pattern) return fc.stringMatching(new RegExp(s.pattern as string));
      const max = Math.min(s.maxLength ?? 40, 40);
      const min = Math.min(s.minLength ?? 0, max);
      return /externalId$/.test(name) ? fc.stringMatching(/^[a-z0-9-]{1,24}$/).map((x) => `fz-${x}`.slice(0, max)) : text(min, max);
    }
    case 'number':
    case 'integer': {
      // Amounts with at most 2 decimals, inside the documented bounds.
      const min = Math.max(Math.ceil(((s.minimum ?? 0) as number) * 100), s.exclusiveMinimum !== undefined ? 1 : 0);
      const max = Math.min(Math.floor(((s.maximum ?? 1_000_000) as number) * 100), 100_000_000);
      return fc.integer({ min, max }).map((n) => (type === 'integer' ? Math.round(n / 100) : n / 100));
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validValue(contract, s.items as JsonSchema, tenant), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 3, 3) });
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, validValue(contract, v, tenant, k)]));
      return fc.record(model, { requiredKeys: (s.required ?? []) as string[] });
    }
    default:
      return fc.constant(null);
  }
}

// ---------------------------------------------------------------- boundary values

const DATE_EDGES = ['2024-02-29', '2023-02-29', '2026-12-31', '2026-13-01', '2026-00-10', '1970-01-01', '9999-12-31', '2026-01-01T23:59:59.999999999Z', '2026-01-01T24:00Z', '2026-06-30T10:00+02:00'];
const PATTERN_EDGES: Record<string, string[]> = {
  '^[A-Z]{3}$': ['EUR', 'eur', 'XXX', 'EURO', 'EU', 'USD', 'ZZZ'],
  '^[A-Z]{2}$': ['ES', 'es', 'XX', 'ESP', 'E'],
};

/**
 * A value at or just past an edge of `schema`: lengths min−1, min, max, max+1; numbers at and
 * across their bounds and at the edge of 4-decimal exactness; calendar edges of dates; array sizes
 * past maxItems. For an object, one property is at its edge and the rest are valid.
 */
export function boundaryValue(contract: OpenApiContract, schema: JsonSchema, tenant: FuzzTenant, name = ''): Arbitrary<unknown> {
  const s = contract.resolve<JsonSchema>(schema);
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]), String(s.enum[0]).toUpperCase(), ` ${String(s.enum[0])}`, '');
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string': {
      if (/Date$/.test(name) || /\\d\{4\}/.test(String(s.pattern ?? ''))) return fc.constantFrom(...DATE_EDGES);
      if (s.pattern && PATTERN_EDGES[s.pattern]) return fc.constantFrom(...PATTERN_EDGES[s.pattern]);
      if (s.format === 'email') return fc.constantFrom(`${'a'.repeat(64)}@example.com`, `${'a'.repeat(65)}@example.com`, `a@${'b'.repeat(240)}.com`, 'a@b', '@example.com', 'a@@b.com');
      const lengths = [s.minLength ?? 0, s.maxLength ?? 255, (s.maxLength ?? 255) + 1, ...(s.minLength ? [s.minLength - 1] : [])];
      return fc.constantFrom(...lengths).map((n) => 'é'.repeat(Math.ceil(n / 2)).slice(0, n) + 'x'.repeat(Math.max(0, n - Math.ceil(n / 2))));
    }
    case 'number':
    case 'integer': {
      const edges: unknown[] = [0, -0.01, 0.0001, 0.00005, 1.23456, 1e-7];
      if (s.maximum !== undefined) edges.push(s.maximum, s.maximum + 1, new Raw('999999999999999.0001'));
      edges.push(new Raw('98765432101234.5678'), new Raw('9007199254740993'), new Raw('1e21'), new Raw('12.30000'));
      return fc.constantFrom(...edges);
    }
    case 'boolean':
      return fc.constantFrom<unknown>('true', 1, 0, null);
    case 'array': {
      const item = validValue(contract, s.items as JsonSchema, tenant);
      const sizes = [0, ...(s.maxItems !== undefined ? [s.maxItems, s.maxItems + 1] : [50])];
      return fc.oneof(
        fc.record({ item, n: fc.constantFrom(...sizes) }).map(({ item, n }) => Array.from({ length: n }, () => item)),
        fc.tuple(boundaryValue(contract, s.items as JsonSchema, tenant), item).map(([edge, other]) => [other, edge]),
      );
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const keys = Object.keys(props);
      if (!keys.length) return fc.constant({});
      return fc.constantFrom(...keys).chain((edge) =>
        fc.record(
          Object.fromEntries(keys.map((k) => [k, k === edge ? boundaryValue(contract, props[k], tenant, k) : validValue(contract, props[k], tenant, k)])),
          { requiredKeys: [...new Set([...((s.required ?? []) as string[]), edge])] },
        ),
      );
    }
    default:
      return fc.constant(null);
  }
}

// ---------------------------------------------------------------- hostile values

const HUGE_NUMBERS = ['1e400', '-1e400', '98765432101234.5678', '1e-400', '123456789012345678901234567890', '-0', '0.00001', '999999999999999.99', '1.0000000000000002', '5e-324'];
const HOSTILE_STRINGS = ['\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\ufeff', '\u202e', '', ' ', '../../etc/passwd', "'; DROP TABLE debtors; --", '${jndi:x}', '<script>', '%00', '\\', '"', '2026-99-99', '2026-02-30', '0000-00-00', '9999-12-31T24:00:00Z'];

const hostileScalar: Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HUGE_NUMBERS).map((n) => new Raw(n)),
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom(null, true, false, 0, -1, [], {}, [null], { a: 1 }),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(256, 1_001, 65_536, 1_000_000).map((n) => 'x'.repeat(n)),
  fc.constantFrom(65, 1_000, 10_000).map((d) => new Raw(deepJson(d, 'array'))),
);

/** Replaces (or adds) one property somewhere in a valid body. */
function mutateField(body: unknown, path: number[], value: unknown, asKey: boolean): unknown {
  const copy = structuredClone(body) as any;
  let node: any = copy;
  for (const step of path) {
    if (Array.isArray(node) && node.length) node = node[step % node.length];
    else if (node && typeof node === 'object') {
      const keys = Object.keys(node).filter((k) => node[k] && typeof node[k] === 'object');
      if (!keys.length) break;
      node = node[keys[step % keys.length]];
    }
  }
  if (Array.isArray(node)) node = node[0];
  if (!node || typeof node !== 'object') return value;
  if (asKey) node[typeof value === 'string' ? value : 'k\u0000'] = 1;
  else {
    const keys = Object.keys(node);
    node[keys.length ? keys[path[0] % keys.length] : 'x'] = value;
  }
  return copy;
}

interface BodyRecipe {
  kind: string;
  build: () => Buffer;
  contentType?: string;
  /** Declared length differs from the bytes: used for the abort case. */
  abort?: boolean;
}

const json = (s: string) => Buffer.from(s, 'utf8');

function hostileBody(contract: OpenApiContract, op: Operation, tenant: FuzzTenant): Arbitrary<BodyRecipe> {
  const valid = op.body ? validValue(contract, op.body, tenant) : fc.constant({});
  const path = fc.array(fc.nat(20), { minLength: 1, maxLength: 4 });
  return fc.oneof(
    // Deep nesting, as the whole body or under a real field, with or without a NUL at the bottom.
    fc
      .record({
        depth: fc.constantFrom(64, 65, 1_000, 10_000, 20_000, 100_000),
        container: fc.constantFrom<'array' | 'object'>('array', 'object'),
        leaf: fc.constantFrom('1', '"\\u0000"', '"\\ud800"', 'null'),
        wrap: fc.boolean(),
      })
      .map(({ depth, container, leaf, wrap }) => ({
        kind: `deep-${container}-${depth}`,
        build: () => json(wrap ? `{"debtors":[${deepJson(depth, container, leaf)}],"amount":${deepJson(depth, container, leaf)}}` : deepJson(depth, container, leaf)),
      })),
    // One field (or key) replaced by a hostile value: huge numbers, NUL, lone surrogates, wrong types, long strings.
    fc.record({ body: valid, path, value: hostileScalar, asKey: fc.boolean() }).map(({ body, path, value, asKey }) => ({
      kind: asKey && typeof value === 'string' && value.length < 100 ? 'hostile-key' : value instanceof Raw ? 'raw-number-or-deep-field' : typeof value === 'string' && value.length > 200 ? 'long-string' : 'hostile-field',
      build: () => json(toJson(mutateField(body, path, value, asKey))),
    })),
    // The whole body of the wrong type.
    fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(null, 1, 'text', [], true)).map((v) => ({ kind: 'wrong-type-body', build: () => json(toJson(v)) })),
    // Duplicate keys: the same name twice with different values.
    fc.record({ body: valid, value: hostileScalar }).map(({ body, value }) => ({
      kind: 'duplicate-keys',
      build: () => {
        const t = toJson(body);
        const first = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body)[0] : undefined;
        return json(first && t.startsWith('{') ? `{${JSON.stringify(first)}:${toJson(value)},${t.slice(1)}` : `{"a":1,"a":${toJson(value)}}`);
      },
    })),
    // Truncated JSON.
    fc.record({ body: valid, cut: fc.double({ min: 0, max: 0.99, noNaN: true }) }).map(({ body, cut }) => ({
      kind: 'truncated',
      build: () => {
        const t = toJson(body);
        return json(t.slice(0, Math.floor(t.length * cut)));
      },
    })),
    // Bytes that are not UTF-8 or not JSON at all.
    fc
      .constantFrom(
        Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
        Buffer.from('{"a":"\u0000raw"}'),
        Buffer.from('\ufeff{"a":1}'),
        Buffer.from('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}'),
        Buffer.from('NaN'),
        Buffer.from('{"a":Infinity}'),
        Buffer.from('   '),
        Buffer.from('{"a":1}{"b":2}'),
        Buffer.from("{'a':1}"),
      )
      .map((b) => ({ kind: 'raw-bytes', build: () => b })),
    // Odd content types around a valid body.
    fc
      .record({
        body: valid,
        contentType: fc.constantFrom(
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=fuzz',
          '',
          'application/json; charset=latin1',
          'APPLICATION/JSON',
          'application/json-patch+json',
          'application/jsonx',
          'application/xml',
          '*/*',
        ),
      })
      .map(({ body, contentType }) => ({
        kind: `content-type:${contentType || 'missing'}`,
        contentType,
        build: () =>
          contentType.startsWith('multipart')
            ? json(`--fuzz\r\nContent-Disposition: form-data; name="body"\r\n\r\n${toJson(body)}\r\n--fuzz--\r\n`)
            : contentType.startsWith('application/x-www') ? json(`body=${encodeURIComponent(toJson(body))}&a=1&a=2`) : json(toJson(body)),
      })),
    // The client hangs up half-way through the body.
    valid.map((body) => ({ kind: 'aborted-upload', abort: true, build: () => json(toJson(body)) })),
  );
}

/** Bodies around the documented size limits (5 MB endpoint, 6 MB platform, 500 items). */
function oversizedBody(tenant: FuzzTenant, op: Operation): Arbitrary<BodyRecipe> {
  const debtor = (i: number, pad = 0) => ({ externalId: `big-${i}`, identityFirstName: 'Ana', identityDocumentType: 'national_id', identityDocumentNumber: `D${i}`, contactInfoAddressStreet: 'x'.repeat(pad) });
  return fc.constantFrom(
    { kind: 'oversize-6MB+', build: () => json(`{"debtors":[],"pad":"${'x'.repeat(PLATFORM_LIMIT_BYTES + 10)}"}`) },
    ...(op.template.endsWith('/debtors') && op.method === 'POST'
      ? [
          { kind: 'oversize-501-items', build: () => json(JSON.stringify({ debtors: Array.from({ length: 501 }, (_, i) => debtor(i)) })) },
          { kind: 'oversize-5MB+', build: () => json(`{"debtors":[${JSON.stringify(debtor(0))}],"pad":"${'x'.repeat(5 * 1024 * 1024 + 10)}"}`) },
        ]
      : [{ kind: 'oversize-1MB', build: () => json(JSON.stringify({ portfolioId: tenant.ids.portfolios[0], reference: 'x'.repeat(1024 * 1024) })) }]),
  );
}

// ---------------------------------------------------------------- parameters

function validParam(contract: OpenApiContract, p: Parameter, tenant: FuzzTenant): Arbitrary<string> {
  if (p.name === 'limit') return fc.integer({ min: 1, max: 100 }).map(String);
  if (p.name === 'cursor') return fc.constant('');
  if (p.name === 'from' || p.name === 'to') return isoDate.map((d) => d.toISOString());
  const s = contract.resolve<JsonSchema>(p.schema);
  if (s.type === 'array') return fc.uniqueArray(fc.constantFrom(...(s.items.enum as string[])), { minLength: 1, maxLength: 3 }).map((xs) => xs.join(','));
  return validValue(contract, s, tenant, p.name).map(String);
}

const HOSTILE_QUERY_VALUES = ['', '0', '-1', '101', '1.5', '1e400', 'abc', '9999999999999999999999', '%00', '%ED%A0%80', '%zz', '%', 'a%00b', 'x'.repeat(5000), 'null', '[]', ',,,', 'unknown', '2026-99-99', '2026-02-30T25:61:00Z'];

function hostileQuery(op: Operation, valid: Arbitrary<Record<string, string>>): Arbitrary<{ kind: string; query: string }> {
  const names = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const name = names.length ? fc.constantFrom(...names, 'unknownParam', '__proto__', 'constructor[prototype][x]') : fc.constantFrom('limit', 'x', '__proto__');
  return fc.oneof(
    fc.record({ base: valid, name, value: fc.constantFrom(...HOSTILE_QUERY_VALUES) }).map(({ base, name, value }) => ({
      kind: 'odd-query-value',
      // Values with % are sent as they are (broken escapes on purpose); others are encoded.
      query: [...Object.entries(base).filter(([k]) => k !== name).map(([k, v]) => `${k}=${encodeURIComponent(v)}`), `${name}=${value.includes('%') ? value : encodeURIComponent(value)}`].join('&'),
    })),
    fc.record({ name, a: fc.constantFrom('1', '2', 'x'), b: fc.constantFrom('1', '50', 'y') }).map(({ name, a, b }) => ({ kind: 'repeated-query-param', query: `${name}=${a}&${name}=${b}` })),
    fc.record({ name }).map(({ name }) => ({ kind: 'bracket-query-param', query: `${name}[]=1&${name}[a]=2` })),
    fc.constantFrom('&&&', '=', '==&=x', '?', '#frag', `${'a=1&'.repeat(2000)}`, 'limit', 'limit=1;limit=2').map((q) => ({ kind: 'odd-query-string', query: q })),
  );
}

const HOSTILE_IDS = ['x'.repeat(64), 'x'.repeat(100), 'x'.repeat(101), '%00', '%ED%A0%80', '%C0', '..', '.', '%2F', '%2e%2e%2f', 'dbt_', 'dbt_01ARZ3NDEKTSV4RRFFQ69G5FAV', "1'%20OR%20'1'='1", '%20', '0', '-1', 'null', 'undefined', '__proto__', '%F0%9F%98%80'];

// ---------------------------------------------------------------- whole requests

type AuthMode = 'write' | 'read' | 'none' | 'unknown-key' | 'malformed-key' | 'wrong-scheme';

function authHeader(mode: AuthMode, tenant: FuzzTenant, bogus: string[]): Arbitrary<Record<string, string>> {
  switch (mode) {
    case 'write':
      return fc.constant({ authorization: `Bearer ${tenant.writeKey}` });
    case 'read':
      return fc.constant({ authorization: `Bearer ${tenant.readKey}` });
    case 'none':
      return fc.constant({});
    case 'unknown-key':
      return fc.constantFrom(...bogus).map((k) => ({ authorization: `Bearer ${k}` }));
    case 'malformed-key':
      return fc
        .constantFrom('svc_live_', 'svc_live_' + 'a'.repeat(43), tenant.writeKey.slice(0, -1) + (tenant.writeKey.endsWith('a') ? 'b' : 'a'), 'x'.repeat(8000), '', `${tenant.writeKey} extra`)
        .map((k) => ({ authorization: `Bearer ${k}` }));
    case 'wrong-scheme':
      return fc.constantFrom(`Basic ${tenant.writeKey}`, tenant.writeKey, 'Bearer', `bearer ${tenant.writeKey}`, `Bearer  ${tenant.writeKey}`).map((v) => ({ authorization: v }));
  }
}

const authMode = fc.oneof(
  { weight: 80, arbitrary: fc.constant<AuthMode>('write') },
  { weight: 5, arbitrary: fc.constant<AuthMode>('read') },
  { weight: 4, arbitrary: fc.constant<AuthMode>('none') },
  { weight: 4, arbitrary: fc.constant<AuthMode>('unknown-key') },
  { weight: 4, arbitrary: fc.constant<AuthMode>('malformed-key') },
  { weight: 3, arbitrary: fc.constant<AuthMode>('wrong-scheme') },
);

const resourceOf: Record<string, keyof FuzzTenant['ids']> = {
  portfolios: 'portfolios',
  debtors: 'debtors',
  debts: 'debts',
  calls: 'calls',
  campaigns: 'campaigns',
  payments: 'payments',
};

function pathFor(op: Operation, tenant: FuzzTenant, hostileId: boolean): Arbitrary<{ path: string; odd: boolean }> {
  if (!op.template.includes('{')) return fc.constant({ path: op.template, odd: false });
  const resource = resourceOf[op.template.split('/')[2]];
  const known = tenant.ids[resource] ?? [];
  const id = hostileId || !known.length ? fc.constantFrom(...HOSTILE_IDS) : fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...known).map(encodeURIComponent) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_IDS) });
  return id.map((value) => ({ path: op.template.replace(/\{[^}]+\}/, value), odd: hostileId }));
}

/**
 * Requests for every operation of the document: valid ones (from the schemas, with the tenant's
 * real ids), boundary values, and hostile ones (see hostileBody, hostileQuery, HOSTILE_IDS),
 * under every kind of authentication.
 */
export function fuzzRequests(contract: OpenApiContract, tenant: FuzzTenant, options: { oversized?: boolean } = {}): Arbitrary<FuzzRequest> {
  const bogus = Array.from({ length: 20 }, () => generateApiKey('live'));
  const perOperation = contract.operations.map((op) => {
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    const validQuery = fc.record(Object.fromEntries(queryParams.map((p) => [p.name, validParam(contract, p, tenant)])), { requiredKeys: [] }) as Arbitrary<
      Record<string, string>
    >;
    const idempotent = op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
    const idempotencyKey = idempotent
      ? fc.oneof(
          { weight: 4, arbitrary: fc.uuid().map((u) => ({ 'idempotency-key': u })) },
          { weight: 2, arbitrary: fc.constantFrom(...IDEMPOTENCY_KEYS).map((k) => ({ 'idempotency-key': k })) },
          { weight: 1, arbitrary: fc.constantFrom('x'.repeat(255), 'x'.repeat(256), ' ', 'ключ').map((k) => ({ 'idempotency-key': encodeURIComponent(k) === k || k === ' ' ? k : encodeURIComponent(k) })) },
          { weight: 3, arbitrary: fc.constant({}) },
        )
      : fc.constant({});
    const validBody: Arbitrary<BodyRecipe | undefined> = op.body ? validValue(contract, op.body, tenant).map((b) => ({ kind: 'valid', build: () => json(toJson(b)) })) : fc.constant(undefined);

    const variant = fc.oneof(
      { weight: 40, arbitrary: fc.constant('valid' as const) },
      { weight: op.body ? 10 : 0, arbitrary: fc.constant('boundary' as const) },
      { weight: 15, arbitrary: fc.constant('body' as const) },
      { weight: op.method === 'GET' && queryParams.length ? 15 : 2, arbitrary: fc.constant('query' as const) },
      { weight: op.template.includes('{') ? 10 : 0, arbitrary: fc.constant('path' as const) },
      { weight: 2, arbitrary: fc.constant('method' as const) },
      { weight: options.oversized ? 1 : 0, arbitrary: fc.constant('oversized' as const) },
    );

    return fc
      .record({ variant, auth: authMode, query: validQuery, idem: idempotencyKey, validBody })
      .chain(({ variant, auth, query, idem, validBody }) =>
        fc
          .record({
            authHeaders: authHeader(auth, tenant, bogus),
            path: pathFor(op, tenant, variant === 'path'),
            body:
              variant === 'body'
                ? hostileBody(contract, op, tenant)
                : variant === 'boundary' && op.body
                  ? boundaryValue(contract, op.body, tenant).map((b): BodyRecipe => ({ kind: 'boundary', build: () => json(toJson(b)) }))
                  : variant === 'oversized' ? oversizedBody(tenant, op) : fc.constant(validBody),
            query:
              variant === 'query'
                ? hostileQuery(op, fc.constant(query))
                : fc.constant({ kind: '', query: Object.entries(query).filter(([, v]) => v !== '').map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&') }),
            otherMethod: fc.constantFrom('PUT', 'PATCH', 'DELETE', op.method === 'GET' ? 'POST' : 'GET', 'OPTIONS'),
          })
          .map(({ authHeaders, path, body, query, otherMethod }): FuzzRequest => {
            const method = variant === 'method' && !contract.operations.some((o) => o.template === op.template && o.method === otherMethod) ? otherMethod : op.method;
            const kind =
              variant === 'valid'
                ? 'valid'
                : variant === 'path'
                  ? 'odd-path-param'
                  : variant === 'query'
                    ? query.kind
                    : variant === 'method'
                      ? 'undocumented-method'
                      : (body?.kind ?? 'valid');
            const headers: Record<string, string> = { ...authHeaders, ...idem };
            if (body) {
              const contentType = body.contentType ?? 'application/json';
              if (contentType) headers['content-type'] = contentType;
            }
            return {
              listener: 'public',
              kind: `${kind}${auth === 'write' ? '' : ` [${auth}]`}`,
              operation: method === op.method ? op : undefined,
              method,
              path: `${BASE}${path.path}${query.query ? `?${query.query}` : ''}`,
              headers,
              body: body?.build,
              abort: body?.abort,
            };
          }),
      );
  });
  return fc.oneof({ weight: 19, arbitrary: fc.oneof(...perOperation) }, { weight: 1, arbitrary: operatorRequests(contract, tenant) });
}

/**
 * The operator listener shares the gateway's parser and hooks but is not in the document: hostile
 * bodies on a few of its routes, with the operator token, none, or a wrong one.
 */
function operatorRequests(contract: OpenApiContract, tenant: FuzzTenant): Arbitrary<FuzzRequest> {
  const routes: [string, string][] = [
    ['POST', '/operator/v1/organizations'],
    ['PATCH', `/operator/v1/portfolios/${tenant.ids.portfolios[0]}`],
    ['POST', `/operator/v1/portfolios/${tenant.ids.portfolios[0]}/payments`],
    ['POST', '/operator/v1/campaigns/%ED%A0%80/transition'],
    ['DELETE', '/operator/v1/debtors/dbt_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
  ];
  const fake: Operation = { id: 'operator', method: 'POST', template: '/operator', parameters: [], responses: new Map(), media: new Map(), scope: 'write' };
  return fc
    .record({
      route: fc.constantFrom(...routes),
      body: hostileBody(contract, fake, tenant),
      auth: fc.constantFrom<[string, Record<string, string>]>(['', { authorization: `Bearer ${OPERATOR_TOKEN}` }], [' [none]', {}], [' [wrong-token]', { authorization: 'Bearer nope' }]),
    })
    .map(({ route: [method, path], body, auth: [label, headers] }) => ({
      listener: 'operator' as const,
      kind: `operator ${body.kind}${label}`,
      method,
      path,
      headers: { ...headers, ...(body.contentType === '' ? {} : { 'content-type': body.contentType ?? 'application/json' }) },
      body: body.build,
      abort: body.abort,
    }));
}
