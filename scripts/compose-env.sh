#!/usr/bin/env sh
# Prints a .env for docker-compose.yml with a fresh random value for every secret it requires:
#   scripts/compose-env.sh > .env && chmod 600 .env
# The stack runs with NODE_ENV=production, so the apps refuse placeholders and weak values
# (libs/config); compose itself refuses to start while one of these is unset (but for
# DATABASE_REPLICATION_PASSWORD: postgres-replica, profile `replicas`, alone refuses to start without it).
set -eu
token() { openssl rand -base64 33 | tr -d '\n=' | tr '+/' '-_'; }
key() { openssl rand -base64 32; }
# nats-server expands $NATS_*_PASSWORD in docker/nats.conf as a config token: a letter, then hex.
nats_password() { printf 'n%s' "$(openssl rand -hex 24)"; }
cat <<ENV
OPERATOR_TOKEN=$(token)
WEBHOOK_SECRET_KEY=$(key)
ERASURE_HMAC_KEY=$(key)
POSTGRES_PASSWORD=$(token)
DATABASE_MIGRATOR_PASSWORD=$(token)
DATABASE_APP_PASSWORD=$(token)
DATABASE_REPLICATION_PASSWORD=$(token)
REDIS_GATEWAY_PASSWORD=$(token)
REDIS_API_CORE_PASSWORD=$(token)
REDIS_IMPORTER_PASSWORD=$(token)
REDIS_WEBHOOK_DISPATCHER_PASSWORD=$(token)
NATS_GATEWAY_PASSWORD=$(nats_password)
NATS_API_CORE_PASSWORD=$(nats_password)
INTERNAL_SIGNING_KEY=$(key)
METRICS_TOKEN=$(token)
GRAFANA_ADMIN_PASSWORD=$(token)
MINIO_ROOT_USER=dc-root-$(openssl rand -hex 4)
MINIO_ROOT_PASSWORD=$(openssl rand -hex 20)
MINIO_APP_USER=dc-app-$(openssl rand -hex 4)
MINIO_APP_PASSWORD=$(openssl rand -hex 20)
ENV
