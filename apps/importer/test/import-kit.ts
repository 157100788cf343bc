import type { ColumnMappingDto, ImportMode, ImportView } from '@dc/contracts';
import {
  createTenant, enqueueImport, OperatorClient, ServiceProcess, Stack, Tenant, uploadCsv, waitForImport, withDatabase,
} from '@dc/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Shared by the importer's API-level end-to-end files (docs/imports.md):
 * the stack environment, the importer process, the load flow through the public routes and the
 * read API that shows a load's effect. Written from the contract (spec imports section,
 * docs/imports.md), not from the implementation.
 */

export const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
export const IMPORT_ID = /^imp_[0-9A-HJKMNP-TV-Z]{26}$/;

/** Every service of an import test stack: polling GET /v1/imports/{id} must not meet the rate limit. */
export function importStackEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return { RATE_LIMIT_PER_MINUTE: '1000000', NATS_REQUEST_TIMEOUT_MS: '20000', ...overrides };
}

export async function startImporter(stack: Stack, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const importer = await stack.startService('importer', env);
  await importer.waitForLog((l) => l.msg === 'importer ready', 20_000);
  return importer;
}

export interface ImportStack {
  stack: Stack;
  operator: OperatorClient;
  tenant: Tenant;
  client: ImportClient;
}

/**
 * A stack with one importer, a tenant and its import client. Small chunks (500 rows): a file of some
 * thousands of rows is written in many transactions, and progress shows.
 */
export async function startImportStack(): Promise<ImportStack> {
  const stack = await Stack.start({ env: importStackEnv() });
  await startImporter(stack, { IMPORT_CHUNK_ROWS: '500' });
  const operator = new OperatorClient(stack.operatorUrl);
  const tenant = await createTenant(operator);
  return { stack, operator, tenant, client: new ImportClient(stack, tenant.key) };
}

const FIXTURES = path.join(__dirname, 'fixtures');

/** The bytes of a fixture file, e.g. `fixture('ok/bom-crlf.csv')` (bytes: BOM and CRLF kept as written). */
export function fixture(name: string): Buffer {
  return readFileSync(path.join(FIXTURES, name));
}

/** The row number of an errorDetails line (`row <n>: <column>: <message>`). */
export function rowOf(line: string): number {
  const m = /^row (\d+): /.exec(line);
  if (!m) throw new Error(`not an errorDetails line: ${line}`);
  return Number(m[1]);
}

/** A mapping from [sourceColumn, targetField] pairs. */
export function mapping(pairs: [string, string | null][]): ColumnMappingDto[] {
  return pairs.map(([sourceColumn, targetField]) => ({ sourceColumn, targetField: targetField as ColumnMappingDto['targetField'] }));
}

/** The imports row as stored (what the API cannot show: how many imports exist). */
export async function importRows(stack: Stack, portfolioId: string): Promise<{ id: string; status: string }[]> {
  return withDatabase(stack.databaseUrl, async (c) => (await c.query('SELECT id, status FROM imports WHERE portfolio_id = $1 ORDER BY id', [portfolioId])).rows);
}

/** Live debtors and debts of a portfolio, counted in SQL (large loads), with duplicates detected. */
export async function liveCounts(stack: Stack, portfolioId: string) {
  return withDatabase(stack.databaseUrl, async (c) => {
    const debtors = await c.query(
      `SELECT count(*)::int AS n, count(DISTINCT (identity_document_type, identity_document_number))::int AS documents,
              count(DISTINCT external_id)::int AS external_ids
         FROM debtors WHERE portfolio_id = $1 AND deleted_at IS NULL`,
      [portfolioId],
    );
    const debts = await c.query(
      `SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS external_ids
         FROM debts WHERE portfolio_id = $1 AND deleted_at IS NULL`,
      [portfolioId],
    );
    const phones = await c.query(
      `SELECT count(*)::int AS n FROM debtor_phones p JOIN debtors d ON d.id = p.debtor_id WHERE d.portfolio_id = $1 AND d.deleted_at IS NULL`,
      [portfolioId],
    );
    return { debtors: debtors.rows[0], debts: debts.rows[0], phones: phones.rows[0].n as number };
  });
}

export interface DebtorView {
  id: string;
  portfolioId: string;
  externalId: string | null;
  identityFirstName: string;
  identityLastName: string | null;
  identityDocumentType: string;
  identityDocumentNumber: string;
  contactInfoPhoneNumbers: { phone: string }[];
  contactInfoEmails: { address: string }[];
  [field: string]: unknown;
}

export interface DebtView {
  id: string;
  debtorId: string;
  externalId: string;
  totalAmount: number;
  paidAmount: number;
  currency: string;
  status: string;
  [field: string]: unknown;
}

/** The load flow and the read API for one organization's key. */
export class ImportClient {
  constructor(
    readonly stack: Stack,
    readonly key: string,
  ) {}

  async get(pathAndQuery: string, key = this.key): Promise<{ status: number; body: any; headers: Headers }> {
    const res = await fetch(`${this.stack.publicUrl}/public/v1${pathAndQuery}`, { headers: { authorization: `Bearer ${key}` } });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  upload(portfolioId: string, body: string | Buffer): Promise<string> {
    return uploadCsv(this.stack.publicUrl, this.key, portfolioId, body);
  }

  /** Enqueues (202 expected) and answers the queued import. */
  async enqueue(portfolioId: string, storageKey: string, columnMapping: ColumnMappingDto[], mode?: ImportMode): Promise<ImportView> {
    const res = await enqueueImport(this.stack.publicUrl, this.key, portfolioId, { storageKey, columnMapping, ...(mode ? { conflictResolution: mode } : {}) });
    if (res.status !== 202) throw new Error(`enqueue: expected 202, got ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.data;
  }

  wait(importId: string, timeoutMs = 60_000, onView?: (v: ImportView) => void): Promise<ImportView> {
    return waitForImport(this.stack.publicUrl, this.key, importId, undefined, timeoutMs, { intervalMs: 100, onView });
  }

  /** Upload, enqueue, wait for the end: the import as it ended. */
  async load(portfolioId: string, csv: string | Buffer, columnMapping: ColumnMappingDto[], mode?: ImportMode, timeoutMs = 60_000): Promise<ImportView> {
    const key = await this.upload(portfolioId, csv);
    const queued = await this.enqueue(portfolioId, key, columnMapping, mode);
    return this.wait(queued.id, timeoutMs);
  }

  /** Every item of a list, following nextCursor. */
  async list<T>(pathAndQuery: string): Promise<T[]> {
    const all: T[] = [];
    let cursor: string | null = null;
    const sep = pathAndQuery.includes('?') ? '&' : '?';
    do {
      const res = await this.get(`${pathAndQuery}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      if (res.status !== 200) throw new Error(`GET ${pathAndQuery}: ${res.status} ${JSON.stringify(res.body)}`);
      all.push(...(res.body.data as T[]));
      cursor = res.body.pagination.nextCursor;
    } while (cursor);
    return all;
  }

  debtors(portfolioId: string): Promise<DebtorView[]> {
    return this.list<DebtorView>(`/debtors?portfolioId=${portfolioId}`);
  }

  debts(portfolioId: string): Promise<DebtView[]> {
    return this.list<DebtView>(`/debts?portfolioId=${portfolioId}`);
  }
}

/** A new active portfolio of the organization (each test loads into its own). */
export async function newPortfolio(operator: OperatorClient, organizationId: string, currencies = ['EUR']): Promise<string> {
  const pf = await operator.expect(201, 'POST', `/organizations/${organizationId}/portfolios`, { identityName: `Load ${Date.now()}`, identityCurrency: currencies });
  return pf.data.id as string;
}

/** Items by external id, for assertions that do not depend on list order. */
export function byExternalId<T extends { externalId: string | null }>(items: T[]): Record<string, T> {
  return Object.fromEntries(items.map((d) => [d.externalId ?? '', d]));
}
