#!/usr/bin/env node
// Applies prisma/migrations/*/migration.sql in name order, each in its own transaction, and records
// them in Prisma's own `_prisma_migrations` table (same checksum), so `prisma migrate status` agrees
// on machines that have the native engine. Runs as a one-shot step, never on service start.
// An advisory lock makes concurrent runs (two replicas of a Job) safe. See docs/adr/0003.
const { createHash, randomUUID } = require('node:crypto');
const { readdirSync, readFileSync, existsSync } = require('node:fs');
const path = require('node:path');
const pg = require('pg');

const dir = path.join(__dirname, '..', 'prisma', 'migrations');

async function migrate(databaseUrl, log = console.log) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(72210001)');
    await client.query(`CREATE TABLE IF NOT EXISTS _prisma_migrations (
      id varchar(36) PRIMARY KEY, checksum varchar(64) NOT NULL, finished_at timestamptz,
      migration_name varchar(255) NOT NULL, logs text, rolled_back_at timestamptz,
      started_at timestamptz NOT NULL DEFAULT now(), applied_steps_count integer NOT NULL DEFAULT 0)`);
    const { rows } = await client.query(
      'SELECT migration_name, checksum FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const names = readdirSync(dir).filter((n) => existsSync(path.join(dir, n, 'migration.sql'))).sort();
    let count = 0;
    for (const name of names) {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      if (applied.has(name)) {
        if (applied.get(name) !== checksum) throw new Error(`migration ${name} was edited after it was applied`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), checksum, name],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${name} failed: ${err.message}`);
      }
      count += 1;
      log(`applied ${name}`);
    }
    log(count ? `${count} migration(s) applied` : 'database is up to date');
  } finally {
    await client.query('SELECT pg_advisory_unlock(72210001)').catch(() => undefined);
    await client.end();
  }
}

/** Creates the database if it does not exist (local development and first deploys). */
async function ensureDatabase(url, log = console.log) {
  const { hostname, pathname } = new URL(url);
  const dbName = decodeURIComponent(pathname.slice(1));
  // Create the database on first run (local development convenience).
  const admin = new pg.Client({ connectionString: url.replace(pathname, '/postgres') });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
  if (!exists.rowCount) {
    await admin.query(`CREATE DATABASE "${dbName.replace(/"/g, '""')}"`);
    log(`created database ${dbName} on ${hostname}`);
  }
  await admin.end();
}

module.exports = { migrate, ensureDatabase };

if (require.main === module) {
  require('dotenv/config');
  const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/debt_collection';
  ensureDatabase(url)
    .then(() => migrate(url))
    .catch((err) => {
      console.error(err.message);
      process.exit(1);
    });
}
