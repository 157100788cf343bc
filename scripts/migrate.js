#!/usr/bin/env node
// Applies prisma/migrations/*/migration.sql in name order, each in its own transaction, and records
// them in Prisma's own `_prisma_migrations` table (same checksum), so `prisma migrate status` agrees
// on machines that have the native engine. Runs as a one-shot step, never on service start.
// An advisory lock makes concurrent runs (two replicas of a Job) safe. See docs/adr/0003.
// Run it as the migration role (owner of the schema); it then grants the apps' role
// (DATABASE_APP_ROLE, default dc_app) what the apps need and no DDL (docs/adr/0027).
const { createHash, randomUUID } = require('node:crypto');
const { readdirSync, readFileSync, existsSync } = require('node:fs');
const path = require('node:path');
const pg = require('pg');

const dir = path.join(__dirname, '..', 'prisma', 'migrations');

/** What the apps' role may do: read and write rows, use sequences, call functions; no DDL, no TRUNCATE. */
async function grantAppRole(client, role, log) {
  const { rows } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (!rows.length) {
    log(`role ${role} does not exist: no grants (create it first, docs/adr/0027)`);
    return;
  }
  const r = pg.escapeIdentifier(role);
  const { rows: db } = await client.query('SELECT current_database() AS name');
  await client.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${pg.escapeIdentifier(db[0].name)} TO ${r}`);
  await client.query(`GRANT USAGE ON SCHEMA public TO ${r}`);
  await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${r}`);
  await client.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${r}`);
  await client.query(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO ${r}`);
  // The migrations' bookkeeping is not the apps' business.
  await client.query(`REVOKE ALL ON TABLE _prisma_migrations FROM ${r}`);
  // Tables, sequences and functions later migrations create (as this role) are granted as they appear.
  await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${r}`);
  await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ${r}`);
  await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT EXECUTE ON FUNCTIONS TO ${r}`);
  log(`granted ${role} row access (no DDL)`);
}

/** DATABASE_URL with DATABASE_PASSWORD (or DATABASE_PASSWORD_FILE) put in, as the apps do (libs/config). */
function urlWithPassword(url, env = process.env) {
  const file = env.DATABASE_PASSWORD_FILE && env.DATABASE_PASSWORD_FILE.trim();
  const password = file ? readFileSync(file, 'utf8').trim() : env.DATABASE_PASSWORD && env.DATABASE_PASSWORD.trim();
  if (!password) return url;
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

/** DATABASE_SSL_CA_FILE: the CA of the server's certificate, for sslmode other than disable (docs/adr/0027). */
function clientConfig(url, env = process.env) {
  const caFile = env.DATABASE_SSL_CA_FILE && env.DATABASE_SSL_CA_FILE.trim();
  if (!caFile) return { connectionString: url };
  const parsed = new URL(url);
  const mode = parsed.searchParams.get('sslmode');
  for (const name of ['sslmode', 'ssl', 'sslrootcert', 'sslcert', 'sslkey', 'uselibpqcompat']) parsed.searchParams.delete(name);
  const ssl = { ca: readFileSync(caFile, 'utf8'), rejectUnauthorized: true, ...(mode === 'verify-ca' ? { checkServerIdentity: () => undefined } : {}) };
  return { connectionString: parsed.toString(), ...(mode === 'disable' ? {} : { ssl }) };
}

async function migrate(databaseUrl, log = console.log, appRole = process.env.DATABASE_APP_ROLE ?? 'dc_app') {
  const client = new pg.Client(clientConfig(databaseUrl));
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
    if (appRole) await grantAppRole(client, appRole, log);
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
  const admin = new pg.Client(clientConfig(url.replace(pathname, '/postgres')));
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
  if (!exists.rowCount) {
    await admin.query(`CREATE DATABASE "${dbName.replace(/"/g, '""')}"`);
    log(`created database ${dbName} on ${hostname}`);
  }
  await admin.end();
}

module.exports = { migrate, ensureDatabase, grantAppRole, urlWithPassword };

if (require.main === module) {
  require('dotenv/config');
  const url = urlWithPassword(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/debt_collection');
  ensureDatabase(url)
    .then(() => migrate(url))
    .catch((err) => {
      console.error(err.message);
      process.exit(1);
    });
}
