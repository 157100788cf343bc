#!/usr/bin/env node
// Starts the four services from dist/ against Postgres, Redis and NATS on localhost (or what the
// environment / .env says), prefixing each output line with the service name. Ctrl-C stops all
// of them gracefully. Used by `npm run start:all` after the build and the migration step.
//
// Once the services answer, it prints a demo API key: the one it saved in var/demo.json if that key
// still works, otherwise a new demo organization (scripts/seed-demo.js). DEMO=false skips this.
// Local development also lets webhooks go to receivers on this machine (http://localhost…) unless
// WEBHOOK_ALLOW_PRIVATE_TARGETS says otherwise; the dispatcher logs a warning when it is on. On a
// terminal the services log readable lines (LOG_FORMAT=pretty) unless LOG_FORMAT says otherwise.
require('dotenv/config');
const { spawn } = require('node:child_process');
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

if (process.env.NODE_ENV !== 'production') process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS ??= 'true';
// The children write to this script's pipe, not to the terminal: ask them for readable lines here.
if (process.env.NODE_ENV !== 'production' && process.stdout.isTTY) process.env.LOG_FORMAT ??= 'pretty';

// Heap options each service runs with (docs/adr/0037), as the Dockerfile gives them.
const { SERVICE_NODE_ARGS } = require('../dist/libs/observability/src/runtime-flags');

const apps = ['api-core', 'gateway', 'importer', 'webhook-dispatcher'];
const children = apps.map((app) => {
  const child = spawn(process.execPath, [...(SERVICE_NODE_ARGS[app] ?? []), path.join(__dirname, '..', 'dist', 'apps', app, 'src', 'main.js')], {
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group: Ctrl-C reaches only this script, which stops each child once with SIGTERM
    // (a child receiving the terminal's SIGINT and then our SIGTERM would take it as "exit now").
    detached: true,
  });
  for (const stream of [child.stdout, child.stderr]) {
    let buffer = '';
    stream.on('data', (chunk) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop();
      for (const line of lines) process.stdout.write(`${app.padEnd(18)} | ${line}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    process.stdout.write(`${app.padEnd(18)} | exited (${signal ?? code})\n`);
    if (!stopping) stop(1);
  });
  return child;
});

let stopping = false;
function stop(code) {
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once('exit', r))))).then(() => process.exit(code));
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
process.on('SIGHUP', () => stop(0)); // terminal closed: the detached children would be left running

const demoFile = path.join(__dirname, '..', 'var', 'demo.json');

async function answers(url) {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

/** Waits for the gateway and api-core to be ready (60 s at most), then prints a working demo key. */
async function printDemoKey() {
  const { seedDemo, publicUrl, operatorUrl } = require('./seed-demo');
  const coreHealth = `http://127.0.0.1:${process.env.HEALTH_PORT ?? 3100}/health/ready`;
  const deadline = Date.now() + 60_000;
  while (!((await answers(`${publicUrl}/health/ready`)) && (await answers(`${operatorUrl}/health/ready`)) && (await answers(coreHealth)))) {
    if (stopping) return;
    if (Date.now() > deadline) throw new Error('the services did not become ready within 60 s');
    await new Promise((r) => setTimeout(r, 500));
  }
  let saved;
  try {
    saved = JSON.parse(readFileSync(demoFile, 'utf8'));
  } catch {
    saved = undefined;
  }
  if (saved?.key) {
    const me = await fetch(`${publicUrl}/public/v1/me`, { headers: { authorization: `Bearer ${saved.key}` } }).catch(() => undefined);
    if (me?.ok) {
      process.stdout.write(`\nDemo API key (from var/demo.json):\n  ${saved.key}\n\nTry:\n  curl -s ${publicUrl}/public/v1/me -H "Authorization: Bearer ${saved.key}"\n\nAPI reference: ${publicUrl}/docs\n\n`);
      return;
    }
  }
  const demo = await seedDemo();
  mkdirSync(path.dirname(demoFile), { recursive: true });
  writeFileSync(demoFile, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
}

if (process.env.DEMO !== 'false') {
  printDemoKey().catch((err) => process.stdout.write(`demo: ${err.message} (npm run seed:demo tries again)\n`));
}
