import { ERROR_CODES, ERROR_HTTP_STATUS, ErrorCode } from '@dc/contracts';
import { MAX_ROWS_EXAMINED_TEXT } from '../src/routes/capped-scan-doc';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The guides of the reference (docs/adr/0030): Markdown files in guides/, in file-name order, joined into
 * `info.description`, where Redoc renders each `#` heading as a section before the endpoints. Read
 * from the source tree (like the contracts), so the build needs to copy nothing.
 *
 * Placeholders keep the prose true to the code: `{{error-codes}}` becomes the table of the closed
 * code list (ERROR_CODES, with their HTTP statuses), `{{sample:<file>}}` the text of a file in
 * guides/samples — the very files the unit tests run (webhook-samples.spec.ts) — and
 * `{{max-rows-examined}}` the most rows a list page examines (MAX_ROWS_EXAMINED_PER_PAGE).
 */
export function readGuides(dir: string): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.md')).sort();
  return files
    .map((file) => readFileSync(path.join(dir, file), 'utf8').trim())
    .join('\n\n')
    .replace(/\{\{sample:([\w.-]+)\}\}/g, (_, name: string) => readFileSync(path.join(dir, 'samples', name), 'utf8').trim())
    .replace('{{error-codes}}', errorCodeTable())
    .replaceAll('{{max-rows-examined}}', MAX_ROWS_EXAMINED_TEXT);
}

/** When each code is answered; a code added to ErrorCode without a line here does not compile. */
export const ERROR_CODE_GUIDE: Record<ErrorCode, string> = {
  [ErrorCode.ValidationError]:
    'The request is not valid: body schema, a query value (non-integer `limit`, unknown `status` or `direction`, unparseable `from`/`to`, a cursor we did not issue), an over-long `Idempotency-Key`, a payment currency that cannot be derived or is not ISO 4217, malformed JSON. Fix the request.',
  [ErrorCode.Unauthorized]: 'The key is missing, malformed, unknown, revoked or expired.',
  [ErrorCode.Forbidden]: 'A write endpoint called with a key without the `write` scope.',
  [ErrorCode.OrganizationInactive]: 'The organization of the key is not active (e.g. suspended).',
  [ErrorCode.NotFound]: 'No such resource, or it belongs to another organization or lies outside the portfolios of a restricted key (indistinguishable on purpose).',
  [ErrorCode.IdempotencyConflict]:
    'An `Idempotency-Key` or a payment `externalId` reused with another body or portfolio, or a retry while the first request with that key is still running.',
  [ErrorCode.InvalidStateTransition]: 'Operator API only: a state change that is not allowed from the current state. The public API never answers it.',
  [ErrorCode.PayloadTooLarge]: 'Debtor batch over 5 MB or over 500 items: use the CSV load flow instead.',
  [ErrorCode.RateLimited]: 'Over the rate limit of the key, or too many failed authentications from your address. Wait `Retry-After` seconds.',
  [ErrorCode.RequestTimeout]: 'The request did not arrive whole within 30 s (headers within 10 s). Retry.',
  [ErrorCode.InternalError]: 'An unexpected failure on our side. Retry with backoff (writes with the same key or externalId).',
  [ErrorCode.ServiceUnavailable]:
    'Temporarily unable to serve: overloaded (the request did not run; `Retry-After` given), a dependency unreachable, or no answer in time. Retry after `Retry-After` when given, otherwise with backoff.',
};

function errorCodeTable(): string {
  const rows = ERROR_CODES.map((code) => `| ${ERROR_HTTP_STATUS[code]} | \`${code}\` | ${ERROR_CODE_GUIDE[code]} |`);
  return ['| HTTP | code | When, and what to do |', '|---|---|---|', ...rows].join('\n');
}
