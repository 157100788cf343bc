import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { OPERATOR_TOKEN } from './stack';

/**
 * Secrets never leak into logs (docs/security.md): every service's log output of an end-to-end run is
 * kept (ServiceProcess writes it under DC_TEST_LOG_DIR) and searched, at the end of the run, for
 * anything that must never be written there. Shapes catch values a test generated at run time
 * (API keys, webhook secrets); literals catch the configured secrets; field names catch a body
 * with personal data logged whole.
 */
export interface LogFinding {
  file: string;
  line: number;
  kind: string;
  /** The offending value shortened so the report itself leaks nothing useful. */
  excerpt: string;
}

interface Shape {
  kind: string;
  pattern: RegExp;
}

export const SECRET_SHAPES: readonly Shape[] = [
  // libs/contracts api-key-format.ts: svc_<stage>_<43 base62>. Logs may show the 13-character prefix only.
  { kind: 'API key', pattern: /svc_(?:live|test)_[0-9A-Za-z]{43}/ },
  // Webhook signing secret (docs/adr/0020): whsec_ + 43 base64 characters.
  { kind: 'webhook secret', pattern: /whsec_[A-Za-z0-9+/]{43}/ },
  // Authorization header values of any kind (a request logged with its headers).
  { kind: 'bearer credential', pattern: /Bearer\s+[A-Za-z0-9._~+/=-]{20,}/i },
  // Personal data fields of the debtor batch (JSON), CSV imports (snake case) and views, with a value.
  { kind: 'debtor document', pattern: /"(?:identityDocumentNumber|identity_document_number)"\s*:\s*"[^"]+"/ },
  { kind: 'debtor name', pattern: /"(?:identityFirstName|identityLastName|identity_first_name|identity_last_name)"\s*:\s*"[^"]+"/ },
];

/** Literal secrets of this run: the operator token, the test keys in every Stack's environment. */
export const RUN_SECRETS: readonly { kind: string; value: string }[] = [{ kind: 'operator token', value: OPERATOR_TOKEN }];

const shorten = (value: string) => `${value.slice(0, 6)}…(${value.length} chars)`;

/** Every finding in one log text. */
export function auditLogText(file: string, text: string, literals: readonly { kind: string; value: string }[] = RUN_SECRETS): LogFinding[] {
  const findings: LogFinding[] = [];
  text.split('\n').forEach((line, index) => {
    for (const { kind, pattern } of SECRET_SHAPES) {
      const match = pattern.exec(line);
      if (match) findings.push({ file, line: index + 1, kind, excerpt: shorten(match[0]) });
    }
    for (const { kind, value } of literals) {
      if (value && line.includes(value)) findings.push({ file, line: index + 1, kind, excerpt: shorten(value) });
    }
  });
  return findings;
}

/** Every finding in every `*.log` file of a directory. */
export async function auditLogDirectory(dir: string, literals: readonly { kind: string; value: string }[] = RUN_SECRETS): Promise<LogFinding[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.log')).sort();
  const findings: LogFinding[] = [];
  for (const file of files) findings.push(...auditLogText(file, await readFile(path.join(dir, file), 'utf8'), literals));
  return findings;
}

export function describeFindings(dir: string, findings: readonly LogFinding[]): string {
  const shown = findings.slice(0, 20).map((f) => `  ${f.file}:${f.line}: ${f.kind} ${f.excerpt}`);
  const more = findings.length > shown.length ? [`  … and ${findings.length - shown.length} more`] : [];
  return [`Secrets or personal data found in service logs (kept in ${dir}):`, ...shown, ...more].join('\n');
}
