import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { REPO_ROOT } from './service-process';
import { urlFor, withAdmin } from './test-database';

const MIGRATIONS = path.join(REPO_ROOT, 'prisma/migrations');

/**
 * A database of its own, migrated only up to a given migration: for tests of a migration path over
 * populated tables (docs/adr/0051), which load rows as the earlier schema had them, then apply the
 * later migrations while writers go on. Migrations run as the admin, each in its own transaction,
 * as scripts/migrate.js runs them.
 */
export class MigrationDatabase {
  private constructor(
    readonly name: string,
    readonly url: string,
    /** The admin's connection to it, for loading rows and checking the result. */
    readonly client: Client,
  ) {}

  /** Migrations whose names sort from `first` to `last` (inclusive), in order. */
  static between(first: string, last: string): string[] {
    return readdirSync(MIGRATIONS).filter((name) => name >= first && name <= last).sort();
  }

  /** A new database with every migration before `first` applied. */
  static async before(first: string): Promise<MigrationDatabase> {
    const name = `dc_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
    const url = urlFor(name);
    const client = new Client({ connectionString: url });
    await client.connect();
    const database = new MigrationDatabase(name, url, client);
    for (const migration of readdirSync(MIGRATIONS).filter((n) => n < first).sort()) await database.apply(migration, client);
    return database;
  }

  /** Applies one migration in a transaction of `client` (default: the admin's); answers its duration in ms. */
  async apply(migration: string, client: Client = this.client): Promise<number> {
    const started = performance.now();
    await client.query('BEGIN');
    try {
      await client.query(readFileSync(path.join(MIGRATIONS, migration, 'migration.sql'), 'utf8'));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
    return performance.now() - started;
  }

  /** A new connection to the database (a writer, a migrator), connected. */
  async connect(): Promise<Client> {
    const client = new Client({ connectionString: this.url });
    await client.connect();
    return client;
  }

  async drop(): Promise<void> {
    await this.client.end();
    await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`));
  }
}
