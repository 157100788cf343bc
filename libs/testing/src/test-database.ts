import { Client } from 'pg';
import { randomBytes } from 'node:crypto';

export const ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
/**
 * The role the apps of every test stack log in as (docs/adr/0027): rows only, no DDL, owns nothing;
 * migrations run as the admin. Local Postgres trusts 127.0.0.1, so it needs no password.
 */
export const APP_ROLE = 'dc_app';
/** Set by the global setup: one template per test run, so concurrent runs never share one. */
export const templateDatabase = (): string => {
  const name = process.env.DC_TEST_TEMPLATE;
  if (!name) throw new Error('DC_TEST_TEMPLATE is not set: run the tests through jest.e2e.config.js');
  return name;
};

/** The admin's URL of `database`. */
export function urlFor(database: string): string {
  return ADMIN_URL.replace(/\/postgres$/, `/${database}`);
}

/** Runs `fn` on a connection of the admin to the cluster's `postgres` database (CREATE and DROP DATABASE). */
export async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database per test file, cloned from the template migrated once by the global setup,
 * so files never see each other's rows and can run in parallel.
 */
export async function createTestDatabase(): Promise<{ url: string; appUrl: string; name: string; drop: () => Promise<void> }> {
  const name = `dc_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabase()}`));
  return {
    name,
    url: urlFor(name),
    appUrl: appUrlFor(name),
    drop: () => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** The URL of `database` as the apps' role. */
export function appUrlFor(database: string): string {
  return urlFor(database).replace('//postgres@', `//${APP_ROLE}@`);
}

/**
 * Used by the global setup: the apps' role, created once per cluster. Concurrent runs may both try:
 * the loser's CREATE ROLE fails as a duplicate (or a unique violation, when both insert at once),
 * which is fine. Cloned databases inherit the template's grants.
 */
export async function ensureAppRole(): Promise<void> {
  await withAdmin((c) =>
    c.query(`DO $$ BEGIN
      CREATE ROLE ${APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END $$`),
  );
}

/** Used by the global setup: creates this run's template database and returns its URL. */
export async function createTemplateDatabase(name: string): Promise<string> {
  await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  return urlFor(name);
}

/** Used by the global teardown. */
export async function dropDatabase(name: string): Promise<void> {
  await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** Direct SQL for assertions (counting rows, reading what the API must not expose). */
export async function withDatabase<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
