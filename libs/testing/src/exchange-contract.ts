import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { clip, JsonSchema, OpenApiContract, Operation } from './fuzz/openapi-contract';

/**
 * The contract test (docs/adr/0030): every exchange the e2e suite had with the public
 * listener, recorded by the gateway's test entry (apps/gateway/testing/exchange-recorder.ts), is
 * checked against docs/openapi.json at the end of the run — the response body by operation and
 * status (OpenApiContract.check: envelope, documented status, schema, X-Request-Id), the response
 * headers the document marks required, and, for 2xx answers, the query the API accepted. Exchanges
 * the document does not cover are counted and listed, never silently dropped.
 */
export interface RecordedExchange {
  method: string;
  /** Fastify's route template (`/public/v1/debtors/:id`); null when no route matched. */
  route: string | null;
  url: string;
  status: number;
  /** Response headers, lower-case names. */
  headers: Record<string, string | string[]>;
  /** Response body text; null when it was a stream (not recorded). */
  body: string | null;
  requestBytes: number;
}

export interface ExchangeMismatch {
  method: string;
  url: string;
  status: number;
  problems: string[];
}

export interface ExchangeReport {
  checked: number;
  mismatches: ExchangeMismatch[];
  /** Why an exchange was not checked → how many, e.g. `test-only route /public/v1/_test/policy-probe`. */
  skipped: Map<string, number>;
}

/** Routes only the test entry point serves (apps/gateway/testing). */
const TEST_ONLY_ROUTE = /^\/public\/v1\/_test\//;

/**
 * The API accepts more than the document asks clients to send (spec list rule 1, and an empty
 * filter meaning no filter): those requests are not the document's mismatches.
 */
function lenient(name: string, value: string): boolean {
  return value === '' || (name === 'limit' && /^[+-]?\d+$/.test(value));
}

export class ExchangeContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<JsonSchema, ValidateFunction>();
  private readonly byRoute = new Map<string, Operation>();

  constructor(private readonly contract: OpenApiContract) {
    addFormats(this.ajv);
    for (const op of contract.operations) this.byRoute.set(`${op.method} ${op.template}`, op);
  }

  static load(file?: string): ExchangeContract {
    return new ExchangeContract(OpenApiContract.load(file));
  }

  check(exchanges: Iterable<RecordedExchange>): ExchangeReport {
    const report: ExchangeReport = { checked: 0, mismatches: [], skipped: new Map() };
    const skip = (why: string) => report.skipped.set(why, (report.skipped.get(why) ?? 0) + 1);
    for (const exchange of exchanges) {
      if (exchange.route === null) {
        skip('no route matched (answered by the router)');
        continue;
      }
      if (TEST_ONLY_ROUTE.test(exchange.route)) {
        skip(`test-only route ${exchange.method} ${exchange.route}`);
        continue;
      }
      const operation = this.byRoute.get(`${exchange.method} ${toTemplate(exchange.route)}`);
      if (!operation) {
        skip(`route not in the document: ${exchange.method} ${exchange.route}`);
        continue;
      }
      report.checked += 1;
      const problems = this.problems(operation, exchange);
      if (problems.length) report.mismatches.push({ method: exchange.method, url: exchange.url, status: exchange.status, problems });
    }
    return report;
  }

  private problems(operation: Operation, exchange: RecordedExchange): string[] {
    // A stream is expected of a file download only (a documented text/csv success, whose body is
    // not parsed): its status, content type and headers are still checked. Anywhere else, the JSON
    // body that should have been checked was not recorded.
    if (exchange.body === null && this.contract.fileMedia(operation, exchange.status) === undefined) {
      return ['the body was a stream: the recorder could not read it'];
    }
    const found = this.contract
      .check(operation, { status: exchange.status, headers: exchange.headers, text: exchange.body ?? '' }, exchange.requestBytes)
      .map((v) => `${v.rule}: ${v.detail}`);
    found.push(...this.headerProblems(operation, exchange));
    if (exchange.status >= 200 && exchange.status < 300) found.push(...this.queryProblems(operation, exchange.url));
    return found;
  }

  /** Headers the document marks required on this response, present and of their schema. */
  private headerProblems(operation: Operation, exchange: RecordedExchange): string[] {
    const op = this.contract.document.paths[operation.template][operation.method.toLowerCase()];
    const status = String(exchange.status);
    const response = this.contract.resolve(op.responses[status] ?? op.responses[`${status[0]}XX`]);
    const found: string[] = [];
    for (const [name, ref] of Object.entries<any>(response?.headers ?? {})) {
      const header = this.contract.resolve(ref);
      const raw = exchange.headers[name.toLowerCase()];
      if (raw === undefined) {
        if (header.required) found.push(`header: required ${name} is missing`);
        continue;
      }
      const value = Array.isArray(raw) ? raw.join(', ') : raw;
      const validate = this.compile(header.schema ?? {});
      if (!validate(typed(header.schema ?? {}, value))) found.push(`header: ${name}: ${JSON.stringify(value)} ${errors(validate)}`);
    }
    return found;
  }

  /** Each documented query parameter the API accepted, against its schema and style. */
  private queryProblems(operation: Operation, url: string): string[] {
    const query = new URL(url, 'http://recorded').searchParams;
    const found: string[] = [];
    for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
      const values = query.getAll(parameter.name).filter((v) => !lenient(parameter.name, v));
      if (values.length === 0) continue;
      const schema = parameter.schema;
      const isList = schema.type === 'array';
      if (!isList && values.length > 1) {
        found.push(`query: ${parameter.name} repeated, but the document takes one value`);
        continue;
      }
      // explode false: `a,b` is the list [a, b]; a repeated parameter (also accepted) adds to it.
      const value = isList ? values.flatMap((v) => ((parameter as { explode?: boolean }).explode === false ? v.split(',') : [v])) : typed(schema, values[0]);
      const validate = this.compile(schema);
      if (!validate(value)) found.push(`query: ${parameter.name}=${JSON.stringify(values.join('&'))} ${errors(validate)}`);
    }
    return found;
  }

  private compile(schema: JsonSchema): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) this.compiled.set(schema, (validate = this.ajv.compile(schema)));
    return validate;
  }
}

/** A header or query text as the JSON value its schema describes (integers, numbers, booleans). */
function typed(schema: JsonSchema, value: string): unknown {
  if ((schema.type === 'integer' || schema.type === 'number') && /^[+-]?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (schema.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function errors(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || ''} ${e.message ?? ''}`.trim()).join('; ');
}

/** `/public/v1/debtors/:id` → `/v1/debtors/{id}`, the document's template. */
export function toTemplate(route: string): string {
  return route.replace(/^\/public/, '').replace(/:(\w+)/g, '{$1}');
}

/**
 * Every `exchanges-*.jsonl` the gateways of a run wrote in `dir`; undefined when there is none.
 * A line that does not parse (a gateway killed mid-write by a fault test) is counted, not fatal.
 */
export async function readExchanges(dir: string): Promise<{ exchanges: RecordedExchange[]; unreadable: number } | undefined> {
  const files = (await readdir(dir)).filter((f) => /^exchanges-.*\.jsonl$/.test(f)).sort();
  if (files.length === 0) return undefined;
  const exchanges: RecordedExchange[] = [];
  let unreadable = 0;
  for (const file of files) {
    for (const line of (await readFile(path.join(dir, file), 'utf8')).split('\n')) {
      if (!line) continue;
      try {
        exchanges.push(JSON.parse(line) as RecordedExchange);
      } catch {
        unreadable += 1;
      }
    }
  }
  return { exchanges, unreadable };
}

/** Checks a run's recorded exchanges (readExchanges), counting unreadable lines among the skipped. */
export function checkRecordedRun(contract: ExchangeContract, recorded: { exchanges: RecordedExchange[]; unreadable: number }): ExchangeReport {
  const report = contract.check(recorded.exchanges);
  if (recorded.unreadable) report.skipped.set('unreadable record (a gateway killed mid-write)', recorded.unreadable);
  return report;
}

export function describeExchangeReport(report: ExchangeReport): string {
  const skipped = [...report.skipped.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([why, n]) => `    ${n} × ${why}`);
  const summary = [
    `OpenAPI contract: ${report.checked} exchanges checked against docs/openapi.json, ${report.mismatches.length} mismatched, ` +
      `${[...report.skipped.values()].reduce((a, b) => a + b, 0)} skipped${skipped.length ? ':' : ''}`,
    ...skipped,
  ];
  const shown = report.mismatches.slice(0, 30).flatMap((m) => [`  ${m.method} ${clip(m.url, 120)} → ${m.status}`, ...m.problems.map((p) => `      ${clip(p, 400)}`)]);
  const more = report.mismatches.length > 30 ? [`  … and ${report.mismatches.length - 30} more`] : [];
  return [...summary, ...shown, ...more].join('\n');
}
