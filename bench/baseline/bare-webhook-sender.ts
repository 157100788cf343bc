/**
 * The webhooks bench's ceiling (bench/webhooks.bench.ts): signed POSTs of the same body and headers
 * as a delivery, sent with bare undici (`request()` on a keep-alive Agent, as the dispatcher) at a
 * fixed concurrency — no queue, no database, no address checks. It answers what this machine can
 * send in the same run, so a dispatcher figure can be read against it (it measured 15,600/s on
 * the day the ≥ 2,000/s delivery target was set).
 * Started by the bench: `node dist/bench/baseline/bare-webhook-sender.js` with the environment below;
 * prints one JSON line `{ "posts": n, "seconds": s, "cpuSeconds": c }` and exits.
 */
import { EVENT_TYPE_HEADER, eventBody, serviceSignature, SIGNATURE_HEADER } from '@dc/webhooks';
import { Agent, request } from 'undici';

export const BareSenderEnv = {
  url: 'BARE_URL',
  secret: 'BARE_SECRET',
  /** The `data` of a real delivery, spliced in as the dispatcher does. */
  data: 'BARE_DATA',
  count: 'BARE_COUNT',
  concurrency: 'BARE_CONCURRENCY',
} as const;

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
}

async function main(): Promise<void> {
  const url = env(BareSenderEnv.url);
  const secret = env(BareSenderEnv.secret);
  const data = env(BareSenderEnv.data);
  const count = Number(env(BareSenderEnv.count));
  const concurrency = Number(env(BareSenderEnv.concurrency));
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });
  let next = 0;
  let failed = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const body = eventBody({ deliveryId: `bare_${i}`, eventId: `evt_bare_${i}`, type: 'payment.registered', createdAt: new Date().toISOString(), livemode: true, dataJson: data });
        const headers = {
          'content-type': 'application/json',
          [SIGNATURE_HEADER]: serviceSignature(secret, body, Math.floor(Date.now() / 1000)),
          [EVENT_TYPE_HEADER]: 'payment.registered',
        };
        const res = await request(url, { method: 'POST', body, headers, dispatcher: agent });
        await res.body.dump();
        if (res.statusCode < 200 || res.statusCode > 299) failed += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await agent.close();
  if (failed) throw new Error(`${failed} of ${count} bare POSTs were not answered 2xx`);
  process.stdout.write(`${JSON.stringify({ posts: count, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`);
}

// Imported by the bench for BareSenderEnv; runs only as its own process.
if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
