import { ERROR_HTTP_STATUS, ErrorCode } from '@dc/contracts';
import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../service-process';

export type JsonSchema = Record<string, any>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

/** One operation of the document, as the fuzzer needs it. */
export interface Operation {
  id: string;
  method: string;
  /** The document's path template, e.g. `/v1/debtors/{id}`. */
  template: string;
  parameters: Parameter[];
  /** Schema of the application/json request body, refs unresolved. */
  body?: JsonSchema;
  /** Status → schema of the JSON body (undefined: no JSON body documented). */
  responses: Map<string, JsonSchema | undefined>;
  /**
   * Status → media type of the documented body: application/json (preferred when several are
   * listed), another one (`text/csv`: a file, not parsed), or undefined when no body is documented.
   */
  media: Map<string, string | undefined>;
  scope: 'read' | 'write';
}

/** The media type of the JSON envelope: every error, and every success but a file download. */
export const JSON_MEDIA = 'application/json';

/** `text/csv; charset=utf-8` → `text/csv` (lower case, parameters dropped). */
export function mediaEssence(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

/** A platform 413 (body over 6 MB): `{Message}` only, no envelope (spec, Errors rule 2). */
export const PLATFORM_LIMIT_BYTES = 6 * 1024 * 1024;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface Violation {
  rule: string;
  detail: string;
}

/**
 * The public API's OpenAPI document (docs/openapi.json) as a set of checkable operations: every
 * response schema is compiled once with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 */
export class OpenApiContract {
  readonly operations: Operation[];
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<JsonSchema, ValidateFunction>();
  private readonly envelope: ValidateFunction;

  constructor(readonly document: JsonSchema) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    // Components as one schema, so `#/components/schemas/X` resolves as in the document.
    this.ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');
    this.envelope = this.compile({ $ref: '#/components/schemas/ErrorEnvelope' });
    this.operations = [];
    for (const [template, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
        const op = item[method];
        if (!op) continue;
        const responses = new Map<string, JsonSchema | undefined>();
        const media = new Map<string, string | undefined>();
        for (const [status, response] of Object.entries<any>(op.responses)) {
          const resolved = this.resolve(response);
          const types = Object.keys(resolved.content ?? {});
          const schema = resolved.content?.[JSON_MEDIA]?.schema as JsonSchema | undefined;
          if (schema) this.validators.set(schema, this.compile(schema));
          responses.set(status, schema);
          media.set(status, types.includes(JSON_MEDIA) ? JSON_MEDIA : types[0]);
        }
        this.operations.push({
          id: op.operationId,
          method: method.toUpperCase(),
          template,
          parameters: (op.parameters ?? []).map((p: any) => this.resolve(p)),
          body: op.requestBody?.content?.['application/json']?.schema,
          responses,
          media,
          scope: /Requires scope `write`/.test(op.description ?? '') ? 'write' : 'read',
        });
      }
    }
  }

  static load(file = path.join(REPO_ROOT, 'docs', 'openapi.json')): OpenApiContract {
    return new OpenApiContract(JSON.parse(readFileSync(file, 'utf8')) as JsonSchema);
  }

  /** Follows a local `$ref` (`#/components/...`) to its target. */
  resolve<T = any>(node: any): T {
    let current = node;
    while (current && typeof current.$ref === 'string') {
      current = current.$ref
        .slice(2)
        .split('/')
        .reduce((acc: any, key: string) => acc?.[key], this.document);
    }
    return current as T;
  }

  /** The documented response of `status` for `operation`: its own, then `4XX`-style, then `default`. */
  responseKey(operation: Operation, status: number): string | undefined {
    return [String(status), `${String(status)[0]}XX`, 'default'].find((k) => operation.responses.has(k));
  }

  /**
   * The media type documented for a success (status below 400) of `operation` when it is not the
   * JSON envelope (e.g. `text/csv`); undefined for JSON, for no body, for an undocumented status,
   * and for every error (always the JSON envelope, whatever is documented).
   */
  fileMedia(operation: Operation | undefined, status: number): string | undefined {
    if (!operation || status >= 400) return undefined;
    const key = this.responseKey(operation, status);
    const media = key === undefined ? undefined : operation.media.get(key);
    return media === undefined || media === JSON_MEDIA ? undefined : media;
  }

  /**
   * Everything wrong with one answer to a request for `operation`. Undefined: the request was
   * aimed outside the document — an undocumented method, which must be refused in the envelope,
   * or (`outside: 'any'`) the operator listener, where only the envelope rules apply.
   * `sentBytes` is the size of the body sent (the platform 413 applies above 6 MB).
   */
  check(operation: Operation | undefined, answer: Answer, sentBytes: number, outside: 'refuse' | 'any' = 'refuse'): Violation[] {
    const found: Violation[] = [];
    const requestId = answer.headers['x-request-id'];
    if (typeof requestId !== 'string' || !requestId) found.push({ rule: 'x-request-id', detail: 'no X-Request-Id header' });
    // A file (a text/csv download): its content type is the contract; the body is not JSON.
    const file = this.fileMedia(operation, answer.status);
    if (file !== undefined) {
      const served = String(answer.headers['content-type'] ?? '');
      if (mediaEssence(served) !== file) found.push({ rule: 'content-type', detail: `${file} answer served as "${served}"` });
      return found;
    }
    let body: unknown;
    try {
      body = answer.text ? JSON.parse(answer.text) : undefined;
    } catch {
      found.push({ rule: 'json', detail: `body is not JSON: ${clip(answer.text)}` });
      return found;
    }
    const contentType = String(answer.headers['content-type'] ?? '');
    if (body !== undefined && !contentType.startsWith('application/json')) {
      found.push({ rule: 'content-type', detail: `JSON body served as "${contentType}"` });
    }

    if (answer.status === 413 && isPlatformTooLarge(body)) {
      if (sentBytes <= PLATFORM_LIMIT_BYTES) found.push({ rule: 'platform-413', detail: `bare 413 for a body of ${sentBytes} bytes` });
      return found;
    }

    if (answer.status >= 400) {
      if (!this.envelope(body)) {
        found.push({ rule: 'envelope', detail: `${ajvErrors(this.envelope)}: ${clip(answer.text)}` });
        return found;
      }
      const error = (body as { error: { code: ErrorCode; requestId: string } }).error;
      if (ERROR_HTTP_STATUS[error.code] !== answer.status) {
        found.push({ rule: 'envelope', detail: `code ${error.code} answered with HTTP ${answer.status}` });
      }
      if (typeof requestId === 'string' && error.requestId !== requestId) {
        found.push({ rule: 'envelope', detail: `requestId ${error.requestId} differs from X-Request-Id ${requestId}` });
      }
      if (answer.status === 429 && answer.headers['retry-after'] === undefined) found.push({ rule: 'retry-after', detail: '429 without Retry-After' });
    }

    if (!operation) {
      if (outside === 'any') return found;
      if (answer.status < 400 || answer.status >= 500) found.push({ rule: 'undocumented-route', detail: `answered ${answer.status} to a request outside the document` });
      return found;
    }
    const key = this.responseKey(operation, answer.status);
    if (!key) {
      found.push({ rule: 'status', detail: `${answer.status} is not documented for ${operation.id}` });
      return found;
    }
    const schema = operation.responses.get(key);
    if (schema) {
      const validate = this.validators.get(schema)!;
      if (!validate(body)) found.push({ rule: 'schema', detail: `${ajvErrors(validate)}: ${clip(answer.text)}` });
    }
    return found;
  }

  private compile(schema: JsonSchema): ValidateFunction {
    // Local refs are resolved against the components document.
    return this.ajv.compile({ ...rebase(schema) });
  }
}

function rebase(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"openapi.json#/')) as JsonSchema;
}

export function isPlatformTooLarge(body: unknown): boolean {
  return typeof body === 'object' && body !== null && Object.keys(body).length === 1 && typeof (body as { Message?: unknown }).Message === 'string';
}

function ajvErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`)
    .join('; ');
}

export function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
