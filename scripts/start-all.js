#!/usr/bin/env node
// Starts the four services from dist/ against Postgres, Redis and NATS on localhost (or what the
// environment / .env says), prefixing each output line with the service name. Ctrl-C stops all
// of them gracefully. Used by `npm run start:all` after the build and the migration step.
require('dotenv/config');
const { spawn } = require('node:child_process');
const path = require('node:path');

const apps = ['api-core', 'gateway', 'importer', 'webhook-dispatcher'];
const children = apps.map((app) => {
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'apps', app, 'src', 'main.js')], {
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
