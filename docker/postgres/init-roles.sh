#!/bin/sh
# Postgres image init script (/docker-entrypoint-initdb.d, run once on an empty data volume):
# the two roles of docs/adr/0027. dc_migrator owns the database (and so its public schema) and runs
# scripts/migrate.js, which grants dc_app row access only (no DDL, owns nothing). Passwords come from
# the environment (DATABASE_MIGRATOR_PASSWORD, DATABASE_APP_PASSWORD), passed as psql variables, never
# spliced into the SQL text. For an existing cluster (or Kubernetes), run the same SQL as a superuser.
set -eu
: "${DATABASE_MIGRATOR_PASSWORD:?required}"
: "${DATABASE_APP_PASSWORD:?required}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v migrator_password="$DATABASE_MIGRATOR_PASSWORD" -v app_password="$DATABASE_APP_PASSWORD" -v db="$POSTGRES_DB" <<'SQL'
CREATE ROLE dc_migrator LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'migrator_password';
CREATE ROLE dc_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'app_password';
ALTER DATABASE :"db" OWNER TO dc_migrator;
-- Only the roles granted CONNECT (by scripts/migrate.js) reach this database; nobody else creates in public.
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SQL
