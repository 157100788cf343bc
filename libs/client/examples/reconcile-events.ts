// Reconciling missed events (guide "Reconciling missed events"): read every event after the last one
// processed, oldest first, and keep the last id in a file. Run it after an outage or on a schedule.
//   npm run build && API_KEY=svc_… node dist/libs/client/examples/reconcile-events.js
// Without API_KEY it uses the demo key `npm run start:all` saved in var/demo.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createClient } from '../src'; // in an application: from '@dc/client'

const STATE = process.env.STATE_FILE ?? 'var/last-event-id';

function apiKey(): string {
  if (process.env.API_KEY) return process.env.API_KEY;
  try {
    return (JSON.parse(readFileSync('var/demo.json', 'utf8')) as { key: string }).key;
  } catch {
    throw new Error('set API_KEY (or run `npm run start:all`, which saves a demo key in var/demo.json)');
  }
}

function lastEventId(): string | undefined {
  try {
    return readFileSync(STATE, 'utf8').trim() || undefined;
  } catch {
    return undefined; // the first run reads every event of the last 30 days
  }
}

async function main(): Promise<void> {
  const dc = createClient({ baseUrl: process.env.BASE_URL ?? 'http://localhost:3000/public', apiKey: apiKey() });
  const after = lastEventId();
  let count = 0;
  for await (const event of dc.paginate('/v1/events', { query: { ...(after ? { after } : {}), limit: 100 } })) {
    // event.type narrows event.data: the payment, the promise or the call the webhook carried.
    if (event.type === 'payment.registered') console.log(`${event.id} payment ${event.data.id} ${event.data.amount} ${event.data.currency}`);
    else console.log(`${event.id} ${event.type} ${event.data.id}`);
    // A receiver deduplicates on event.id here: a webhook delivery may have carried it already (its eventId).
    mkdirSync('var', { recursive: true });
    writeFileSync(STATE, event.id);
    count += 1;
  }
  console.log(`${count} events since ${after ?? 'the start of the retention'}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
