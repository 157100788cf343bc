/**
 * Preloaded into a service (`--project-env NODE_OPTIONS=--require=$PWD/dist/bench/promise-counter.js`,
 * bench/README.md): counts the promises the process creates per HTTP request it serves, a measure of
 * per-request work that, unlike CPU time, does not move with this VM's speed (docs/adr/0039). Every
 * 5 s with more than 100 requests it appends one line to `$PROMISE_COUNT_FILE` (default
 * `/tmp/promise-count.<pid>`): the script, the requests, the promises per request.
 *
 * The hook itself makes every promise slower: read the counts, not the run's speed.
 */
import { createHook } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import { Server } from 'node:http';

const file = process.env.PROMISE_COUNT_FILE ?? `/tmp/promise-count.${process.pid}`;
let promises = 0;
let requests = 0;

createHook({
  init(_id, type) {
    if (type === 'PROMISE') promises += 1;
  },
}).enable();

const emit = Server.prototype.emit;
Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
  if (event === 'request') requests += 1;
  return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
};

setInterval(() => {
  if (requests > 100) appendFileSync(file, `${process.argv[1]} requests ${requests} promises/request ${(promises / requests).toFixed(1)}\n`);
  promises = 0;
  requests = 0;
}, 5_000).unref();
