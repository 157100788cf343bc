#!/usr/bin/env sh
# Prints a .env for docker-compose.yml with a fresh random value for every secret it requires:
#   scripts/compose-env.sh > .env && chmod 600 .env
# The stack runs with NODE_ENV=production, so the apps refuse placeholders and weak values
# (libs/config); compose itself refuses to start while one of these is unset.
set -eu
token() { openssl rand -base64 33 | tr -d '\n=' | tr '+/' '-_'; }
key() { openssl rand -base64 32; }
cat <<ENV
OPERATOR_TOKEN=$(token)
WEBHOOK_SECRET_KEY=$(key)
ENV
