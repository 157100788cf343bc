#!/bin/sh
# Entrypoint of the `postgres-replica` service (docker-compose.yml, profile `replicas`; docs/adr/0050):
# a streaming hot standby of `postgres`. On first start (no $PGDATA in its volume) it clones the
# primary with pg_basebackup as dc_replicator (docker/postgres/init-replication.sh) into a scratch
# directory, renamed to $PGDATA only once complete, so an interrupted clone is redone; `-R` writes
# standby.signal and primary_conninfo. Then postgres runs as a hot standby (read-only queries).
# Started as root, like the official image's entrypoint: it gives the volume to the postgres user
# (0700), then runs itself again as postgres through gosu.
# A replica stopped for long may find the WAL it needs recycled on the primary ("requested WAL
# segment … has already been removed"; no replication slot, so a stopped replica never fills the
# primary's disk): remove its volume (`docker compose rm -sf postgres-replica`, then
# `docker volume rm <project>_postgres-replica-data`) and it clones afresh.
set -eu
: "${DATABASE_REPLICATION_PASSWORD:?set DATABASE_REPLICATION_PASSWORD (scripts/compose-env.sh)}"
: "${PGDATA:?}"
volume=$(dirname "$PGDATA")

if [ "$(id -u)" = 0 ]; then
  chown postgres:postgres "$volume"
  chmod 0700 "$volume"
  find "$volume" \! -user postgres -exec chown postgres:postgres '{}' +
  exec gosu postgres sh "$0" "$@"
fi

# The password goes in a passfile, rewritten on every start (a new one in .env applies): never on a
# command line, and primary_conninfo (-R) names the file rather than holding the password.
umask 077
export PGPASSFILE=/var/lib/postgresql/.pgpass
printf 'postgres:5432:replication:dc_replicator:%s\n' "$(printf '%s' "$DATABASE_REPLICATION_PASSWORD" | sed 's/[\\:]/\\&/g')" > "$PGPASSFILE"

if [ ! -d "$PGDATA" ]; then
  rm -rf "$PGDATA.partial"
  echo "replica-entrypoint: cloning postgres into $PGDATA (pg_basebackup)" >&2
  pg_basebackup -h postgres -p 5432 -U dc_replicator -w -D "$PGDATA.partial" -X stream -R --checkpoint=fast
  mv "$PGDATA.partial" "$PGDATA"
fi
exec postgres -c hot_standby=on -c hot_standby_feedback=on -c cluster_name=postgres-replica "$@"
