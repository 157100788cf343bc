#!/usr/bin/env node
// The Redis ACL of the platform (docs/adr/0027): one user per service, each limited to the keys and
// commands that service uses. The one source of the rules: compose's `redis-acl` step renders the
// ACL files from it, the e2e tests start private Redis servers with its output, and Kubernetes
// operators render the file for their Redis with it. Redis ACL files cannot read environment
// variables, so the file is rendered; passwords are written as SHA-256 hashes (`#<hex>`), never
// in plain text.
//
//   node docker/redis/acl.js [--prefix dc] [--server main|idempotency] [--secrets-dir DIR [--generate]]
//
// Passwords: REDIS_<SERVICE>_PASSWORD (e.g. REDIS_API_CORE_PASSWORD) or, with --secrets-dir, the
// file DIR/redis-<service> (which --generate creates with a random password when missing).
'use strict';
const { createHash, randomBytes } = require('node:crypto');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

/**
 * Queue names (libs/contracts: IMPORTS_QUEUE, WEBHOOK_DELIVERIES_QUEUE); BullMQ keys are
 * `{<prefix>}:<queue>:…` (libs/config bullPrefix: a Redis Cluster hash tag, docs/adr/0033).
 */
const QUEUES = { imports: 'imports', deliveries: 'webhook-deliveries' };

// Commands of the plain key-value uses (rate limit and failed-auth Lua, idempotency records with
// their per-key quota, claim-checked payloads), plus the connection handshake, readiness PING and
// INFO (ioredis's ready check waits with it for a restarted Redis to finish loading its data).
const KEY_VALUE = [
  '-@all', '+@connection', '+info', '+get', '+set', '+getdel', '+del', '+exists', '+incr', '+incrby', '+expire', '+hget', '+hset', '+hincrby', '+hdel', '+hstrlen',
  '+zadd', '+zrem', '+zscore', '+zcard', '+zrange', '+time', '+evalsha', '+eval', '+script|load',
];
// BullMQ: its Lua scripts (EVALSHA, loaded with SCRIPT LOAD or sent with EVAL) touch many kinds of
// keys (hashes, lists, sorted sets, streams); the worker blocks on BZPOPMIN (in @write); INFO reads the server
// version; CLIENT SETNAME names its connections (ioredis's CLIENT SETINFO is turned off in
// libs/transport redisOptions: Redis 7.0 does not know it, 7.2 would log each refusal). Everything dangerous (FLUSHALL, KEYS, CONFIG,
// DEBUG…) stays off; every key is confined to the service's queues by the key pattern.
const BULLMQ = ['-@all', '+@connection', '+@read', '+@write', '+@scripting', '+@transaction', '-@dangerous', '+info', '+client|setname', '+client|getname'];
// The gateway's queue board (/operator/queues, read-only): reads both queues, directly or in BullMQ's
// Lua scripts (whose commands Redis checks against the same rules), and writes nothing.
const BULLMQ_READ = ['+@read', '+@scripting', '-@dangerous', '-@write'];

/** Key patterns and command rules per user and server, under the deployment's key prefix. */
function users(prefix, server) {
  const k = (pattern) => `~${prefix}:${pattern}`;
  // ACL key patterns are globs: `{` and `}` match themselves (`[` would open a class).
  const queue = (name) => `~{${prefix}}:${name}:*`;
  if (server === 'idempotency') {
    // The Redis of Idempotency-Key records only (IDEMPOTENCY_REDIS_URL): the gateway alone.
    return { gateway: { keys: [k('idem:*')], commands: KEY_VALUE } };
  }
  return {
    // Rate-limit windows, failed-auth counters, idempotency records (when they share this Redis),
    // request bodies parked for api-core (claim check, docs/adr/0017). The queues only through a
    // Redis 7 selector: read-only, for the queue board (docs/adr/0032).
    gateway: {
      keys: [k('rl:*'), k('authfail:*'), k('idem:*'), k('payload:*')],
      commands: KEY_VALUE,
      selectors: [[queue(QUEUES.imports), queue(QUEUES.deliveries), ...BULLMQ_READ]],
    },
    // Takes parked request bodies (and may park its own); produces import jobs.
    'api-core': { keys: [k('payload:*'), queue(QUEUES.imports)], commands: BULLMQ },
    // The imports queue's worker (and its repair, which enqueues again).
    importer: { keys: [queue(QUEUES.imports)], commands: BULLMQ },
    // The deliveries queue: producer (relay) and worker.
    'webhook-dispatcher': { keys: [queue(QUEUES.deliveries)], commands: BULLMQ },
  };
}

const SERVICES = Object.keys(users('dc', 'main'));

/** The ACL file's text for `server`; `passwords` maps a service to its password (users without one are left out). */
function renderAcl({ prefix = 'dc', server = 'main', passwords }) {
  // As REDIS_KEY_PREFIX (libs/config): no braces, the queue patterns add the hash tag.
  if (!/^[A-Za-z0-9_.-]+$/.test(prefix)) throw new Error(`unsupported key prefix "${prefix}" (letters, digits, _ . - only)`);
  // An ACL file has no comments: every line is a user.
  const lines = ['user default off resetpass resetkeys resetchannels -@all'];
  for (const [name, { keys, commands, selectors = [] }] of Object.entries(users(prefix, server))) {
    const password = passwords[name];
    if (!password) continue;
    const hash = createHash('sha256').update(password).digest('hex');
    // A selector `(…)` is a further set of key patterns and commands: a command is allowed when the root rules or one selector allow it.
    const extra = selectors.map((rules) => `(${rules.join(' ')})`);
    lines.push(['user', name, 'reset', 'on', `#${hash}`, ...keys, 'resetchannels', ...commands, ...extra].join(' '));
  }
  return `${lines.join('\n')}\n`;
}

/** REDIS_API_CORE_PASSWORD for api-core. */
const passwordVariable = (service) => `REDIS_${service.toUpperCase().replace(/-/g, '_')}_PASSWORD`;

function passwordsFrom(env, secretsDir, generate) {
  const passwords = {};
  for (const service of SERVICES) {
    let password = env[passwordVariable(service)];
    const file = secretsDir && path.join(secretsDir, `redis-${service}`);
    if (!password && file && existsSync(file)) password = readFileSync(file, 'utf8').trim();
    if (!password && file && generate) {
      password = randomBytes(32).toString('base64url');
      writeFileSync(file, `${password}\n`, { mode: 0o644 });
    }
    if (password) passwords[service] = password;
  }
  return passwords;
}

module.exports = { renderAcl, users, SERVICES, passwordVariable };

if (require.main === module) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : fallback;
  };
  try {
    const passwords = passwordsFrom(process.env, option('secrets-dir'), args.includes('--generate'));
    const server = option('server', 'main');
    // Only the users of that server (the idempotency Redis knows the gateway alone).
    const missing = Object.keys(users('dc', server)).filter((s) => !passwords[s]);
    if (missing.length) process.stderr.write(`no password for ${missing.map(passwordVariable).join(', ')}: those users are left out\n`);
    process.stdout.write(renderAcl({ prefix: option('prefix', process.env.REDIS_KEY_PREFIX || 'dc'), server, passwords }));
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
