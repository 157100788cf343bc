import fc from 'fast-check';
import http from 'node:http';
import { createTenant, OperatorClient } from '../operator-client';
import { ServiceProcess } from '../service-process';
import { Stack } from '../stack';
import { clip, OpenApiContract, Violation } from './openapi-contract';
import { FuzzRequest, fuzzRequests, FuzzTenant } from './requests';
import { Outcome, send } from './send';

/** Environment for a fuzzed stack: the rate limit must not answer every request with 429. */
export const FUZZ_STACK_ENV = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  // The per-address limit on failed authentication would answer most requests without a valid
  // key with 429 (documented) before their bodies are looked at; its own tests cover it.
  AUTH_FAILURES_PER_MINUTE: '1000000',
};

export interface FuzzOptions {
  seed: number;
  count: number;
  /** Requests in flight at once (8). */
  concurrency?: number;
  /** Requests between two checks that every process still runs (100). */
  batchSize?: number;
  /** Also send bodies around and over the 5 MB / 6 MB limits (slow: leave out of short runs). */
  oversized?: boolean;
  /** Progress lines (one per batch). */
  progress?: (line: string) => void;
}

export interface Finding {
  kind: string;
  input: string;
  answer: string;
  violations: Violation[];
}

export interface ProcessExit {
  app: string;
  pid: number;
  how: string;
  stderr: string;
  /** Requests of the batch in which it died that got no answer: the suspects. */
  suspects: string[];
}

export interface FuzzReport {
  seed: number;
  requests: number;
  byStatus: Map<string, number>;
  byKind: Map<string, { requests: number; violations: number }>;
  violations: number;
  serverErrors: number;
  exits: ProcessExit[];
  /** Up to 3 findings per rule and kind; `violations` counts them all. */
  findings: Finding[];
  ms: number;
}

/** An organization with a portfolio, keys, and a few rows of every kind the reads can return. */
export async function prepareFuzzTenant(stack: Stack): Promise<FuzzTenant> {
  const operator = new OperatorClient(stack.operatorUrl);
  const tenant = await createTenant(operator, { name: 'Fuzz Collections', portfolios: 2, currencies: ['EUR'] });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.publicUrl}/public/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${tenant.key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const ids: FuzzTenant['ids'] = { portfolios: tenant.portfolioIds, debtors: [], debts: [], calls: [], campaigns: [], payments: [] };
  for (const portfolioId of tenant.portfolioIds) {
    await api('POST', `/portfolios/${portfolioId}/debtors`, {
      debtors: Array.from({ length: 3 }, (_, i) => ({
        externalId: `seed-${i}`,
        identityFirstName: 'Ana',
        identityDocumentType: 'national_id',
        identityDocumentNumber: `DOC-${portfolioId.slice(-6)}-${i}`,
        contactInfoPhoneNumbers: [{ phone: '+34 600 000 00' + i, primary: true }],
        contactInfoEmails: [{ address: `ana${i}@example.com` }],
        debts: [{ externalId: `seed-debt-${i}`, totalAmount: 1000, currency: 'EUR', dueDate: '2026-06-30' }],
      })),
    });
    const debtors = (await api('GET', `/debtors?portfolioId=${portfolioId}`)).data as { id: string }[];
    const debts = (await api('GET', `/debts?portfolioId=${portfolioId}`)).data as { id: string; debtorId: string }[];
    ids.debtors.push(...debtors.map((d) => d.id));
    ids.debts.push(...debts.map((d) => d.id));
    const call = await operator.expect(201, 'POST', `/portfolios/${portfolioId}/calls`, { direction: 'outbound', status: 'queued', debtorId: debtors[0].id });
    ids.calls.push(call.data.id);
    const campaign = await operator.expect(201, 'POST', `/portfolios/${portfolioId}/campaigns`, { name: 'Fuzz campaign' });
    ids.campaigns.push(campaign.data.id);
    const payment = await api('POST', '/payments', { externalId: `seed-${portfolioId}`, portfolioId, debtorId: debts[0].debtorId, debtId: debts[0].id, amount: 10, paymentDate: '2026-01-15' });
    ids.payments.push(payment.data.id);
  }
  return { writeKey: tenant.key, readKey: tenant.readKey, ids, currency: 'EUR' };
}

function describeRequest(request: FuzzRequest, bodyPreview: string): string {
  const headers = Object.entries(request.headers)
    .map(([k, v]) => `${k}: ${clip(k === 'authorization' ? v.replace(/svc_(live|test)_\w+/, 'svc_$1_…') : v, 60)}`)
    .join('; ');
  return `${request.method} ${clip(request.path, 160)} {${headers}}${bodyPreview ? ` body=${bodyPreview}` : ''}`;
}

function preview(request: FuzzRequest): string {
  if (!request.body) return '';
  const body = request.body();
  const text = body.subarray(0, 160).toString('utf8');
  return `${JSON.stringify(text)}${body.length > 160 ? `…(${body.length} bytes)` : ''}`;
}

/**
 * Sends `count` requests generated (seeded) from the OpenAPI document to the stack's public
 * listener, checks every answer against the document, and after every batch that every
 * process still runs (a dead one is recorded with its suspects, then restarted).
 */
export async function runFuzz(stack: Stack, contract: OpenApiContract, tenant: FuzzTenant, options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const concurrency = options.concurrency ?? 8;
  const batchSize = options.batchSize ?? 100;
  const requests = fc.sample(fuzzRequests(contract, tenant, { oversized: options.oversized }), { seed: options.seed, numRuns: options.count });
  const report: FuzzReport = { seed: options.seed, requests: 0, byStatus: new Map(), byKind: new Map(), violations: 0, serverErrors: 0, exits: [], findings: [], ms: 0 };
  const sampled = new Map<string, number>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const reported = new WeakSet<ServiceProcess>();
  let gateway = stack.gateways.find((g) => g.process.running)!;

  const record = (request: FuzzRequest, outcome: Outcome) => {
    report.requests += 1;
    const expectNoAnswer = request.abort === true;
    const statusKey = 'answer' in outcome ? String(outcome.answer.status) : expectNoAnswer ? 'aborted by client' : 'no answer';
    report.byStatus.set(statusKey, (report.byStatus.get(statusKey) ?? 0) + 1);
    const kind = report.byKind.get(request.kind) ?? { requests: 0, violations: 0 };
    kind.requests += 1;
    report.byKind.set(request.kind, kind);
    let violations: Violation[];
    if ('answer' in outcome) {
      if (outcome.answer.status >= 500) report.serverErrors += 1;
      violations = contract.check(request.operation, outcome.answer, outcome.bytes ?? 0, request.listener === 'operator' ? 'any' : 'refuse');
      if (outcome.answer.status >= 500) violations.push({ rule: '5xx', detail: `server error ${outcome.answer.status}` });
    } else {
      violations = expectNoAnswer ? [] : [{ rule: 'no-answer', detail: outcome.error }];
    }
    if (!violations.length) return;
    report.violations += 1;
    kind.violations += 1;
    const bucket = `${violations[0].rule}|${request.kind}`;
    if ((sampled.get(bucket) ?? 0) >= 3) return;
    sampled.set(bucket, (sampled.get(bucket) ?? 0) + 1);
    report.findings.push({
      kind: request.kind,
      input: describeRequest(request, preview(request)),
      answer: 'answer' in outcome ? `${outcome.answer.status} ${clip(outcome.answer.text, 300)}` : outcome.error,
      violations,
    });
  };

  try {
    for (let from = 0; from < requests.length; from += batchSize) {
      const batch = requests.slice(from, from + batchSize);
      const outcomes: Outcome[] = new Array(batch.length);
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < batch.length) {
            const i = next++;
            outcomes[i] = await send(batch[i].listener === 'operator' ? gateway.operatorUrl : gateway.publicUrl, batch[i], agent);
          }
        }),
      );
      // Give a process that is dying a moment to be seen dead.
      await new Promise((r) => setTimeout(r, 20));
      batch.forEach((request, i) => record(request, outcomes[i]));
      const dead = [...stack.gateways.map((g) => g.process), ...stack.apiCores].filter((p) => !p.running && !reported.has(p));
      for (const p of dead) {
        reported.add(p);
        report.exits.push({
          app: p.app,
          pid: p.pid,
          how: p.exitDescription ?? '?',
          stderr: clip(p.errorOutput.trim().split('\n').slice(-12).join('\n'), 1500),
          suspects: batch.filter((r, i) => !r.abort && 'error' in outcomes[i]).slice(0, 5).map((r) => describeRequest(r, preview(r))),
        });
        // Go on with a fresh process, so one crash does not hide everything after it.
        if (p.app === 'gateway') gateway = await stack.startGateway();
        else await stack.startApiCore();
      }
      options.progress?.(
        `batch ${from / batchSize + 1}: ${Math.min(from + batchSize, requests.length)}/${requests.length} requests, ${report.violations} violations, ${report.serverErrors} 5xx, ${report.exits.length} exits`,
      );
    }
  } finally {
    agent.destroy();
  }
  report.ms = Date.now() - started;
  return report;
}

/** Every service process of the stack that is not running (to assert none at the end). */
export function deadProcesses(stack: Stack): string[] {
  return [...stack.gateways.map((g) => g.process), ...stack.apiCores].filter((p) => !p.running).map((p) => `${p.app} pid ${p.pid} (${p.exitDescription})`);
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (i ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`, ...rows.map(line)].join('\n');
}

/** The run as Markdown: totals, answers by status, inputs by kind, then each finding. */
export function formatReport(report: FuzzReport): string {
  const statuses = [...report.byStatus.entries()].sort(([a], [b]) => a.localeCompare(b));
  const summary = table(
    ['fuzz run', 'value'],
    [
      ['seed', String(report.seed)],
      ['requests', report.requests.toLocaleString('en')],
      ...statuses.map(([status, n]): string[] => [`  answered ${status}`, n.toLocaleString('en')]),
      ['responses outside the document (violations)', String(report.violations)],
      ['5xx', String(report.serverErrors)],
      ['process exits', String(report.exits.length)],
      ['seconds', (report.ms / 1000).toFixed(1)],
    ],
  );
  const kinds = table(
    ['input kind', 'requests', 'violations'],
    [...report.byKind.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, String(v.requests), String(v.violations)]),
  );
  const findings = report.findings.map((f) => `- [${f.violations.map((v) => v.rule).join(', ')}] ${f.kind}\n    input:  ${f.input}\n    answer: ${f.answer}\n    why:    ${f.violations.map((v) => v.detail).join(' / ')}`);
  const exits = report.exits.map((e) => `- ${e.app} pid ${e.pid} exited (${e.how})\n    suspects:\n${e.suspects.map((s) => `      ${s}`).join('\n')}\n    stderr: ${e.stderr}`);
  return [summary, '', kinds, ...(exits.length ? ['', 'Process exits:', ...exits] : []), ...(findings.length ? ['', 'Findings (up to 3 per rule and kind):', ...findings] : [])].join('\n');
}
