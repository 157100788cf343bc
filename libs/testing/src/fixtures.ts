import { Client } from 'pg';
import { ulid } from 'ulid';

/**
 * Rows inserted directly for tests whose subject is not how the rows got there (reads,
 * payments). Debtors and debts normally enter through the batch endpoint or a CSV load.
 */
export interface DebtorFixture {
  portfolioId: string;
  externalId?: string;
  firstName?: string;
  status?: string;
  deletedAt?: Date | null;
}

export interface DebtFixture {
  portfolioId: string;
  debtorId: string;
  externalId?: string;
  totalAmount?: number;
  paidAmount?: number;
  currency?: string;
  status?: string;
  dueDate?: string | null;
}

export const fixtureId = (prefix: string) => `${prefix}_${ulid()}`;

/** An organization and its portfolios (EUR), under the given ids. */
export async function insertOrganization(client: Client, organizationId: string, portfolioIds: readonly string[]): Promise<void> {
  await client.query(`INSERT INTO organizations (id, name) VALUES ($1, $1)`, [organizationId]);
  await client.query(
    `INSERT INTO portfolios (id, organization_id, identity_name, identity_currency) SELECT p, $2, p, '{EUR}' FROM unnest($1::text[]) AS p`,
    [portfolioIds, organizationId],
  );
}

export async function insertDebtor(client: Client, f: DebtorFixture): Promise<string> {
  const id = fixtureId('dbt');
  await client.query(
    `INSERT INTO debtors (id, portfolio_id, external_id, status, identity_first_name, identity_document_type,
       identity_document_number, deleted_at)
     VALUES ($1, $2, $3, $4, $5, 'national_id', $6, $7)`,
    [id, f.portfolioId, f.externalId ?? `ext-${id}`, f.status ?? 'active', f.firstName ?? 'Ana', `DOC-${id.slice(-8)}`, f.deletedAt ?? null],
  );
  return id;
}

export async function insertDebt(client: Client, f: DebtFixture): Promise<string> {
  const id = fixtureId('debt');
  await client.query(
    `INSERT INTO debts (id, portfolio_id, debtor_id, external_id, total_amount, paid_amount, currency, status, due_date)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [id, f.portfolioId, f.debtorId, f.externalId ?? `debt-${id}`, f.totalAmount ?? 100, f.paidAmount ?? 0, f.currency ?? 'EUR', f.status ?? 'active', f.dueDate ?? null],
  );
  return id;
}
