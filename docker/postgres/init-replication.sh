#!/bin/sh
# Postgres image init script (/docker-entrypoint-initdb.d, run once on an empty data volume): lets the
# `postgres-replica` service (profile `replicas`, docker/postgres/replica-entrypoint.sh) stream from
# this server. dc_replicator may replicate and nothing else (no database privileges), from the compose
# network only (`samenet`), with scram-sha-256. Without DATABASE_REPLICATION_PASSWORD (a .env made
# before it) only the pg_hba.conf entry is added. On an existing volume, as a superuser:
#   CREATE ROLE dc_replicator LOGIN REPLICATION PASSWORD '…';
#   then append the pg_hba.conf line below to $PGDATA/pg_hba.conf and SELECT pg_reload_conf();
set -eu
if [ -n "${DATABASE_REPLICATION_PASSWORD:-}" ]; then
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -v replication_password="$DATABASE_REPLICATION_PASSWORD" <<'SQL'
CREATE ROLE dc_replicator LOGIN REPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'replication_password';
SQL
else
  echo 'init-replication: DATABASE_REPLICATION_PASSWORD is unset: no dc_replicator role, so no replica can connect' >&2
fi
printf '\n# Streaming replicas (docker/postgres/init-replication.sh)\nhost replication dc_replicator samenet scram-sha-256\n' >> "$PGDATA/pg_hba.conf"
