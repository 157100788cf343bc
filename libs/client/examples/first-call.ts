// The README's quick start, with the typed client: who am I, then every debtor, page by page.
//   npm run build && API_KEY=svc_… node dist/libs/client/examples/first-call.js
// Without API_KEY it uses the demo key `npm run start:all` saved in var/demo.json.
import { readFileSync } from 'node:fs';
import { createClient, isApiError } from '../src'; // in an application: from '@dc/client'

function apiKey(): string {
  if (process.env.API_KEY) return process.env.API_KEY;
  try {
    return (JSON.parse(readFileSync('var/demo.json', 'utf8')) as { key: string }).key;
  } catch {
    throw new Error('set API_KEY (or run `npm run start:all`, which saves a demo key in var/demo.json)');
  }
}

async function main(): Promise<void> {
  const dc = createClient({ baseUrl: process.env.BASE_URL ?? 'http://localhost:3000/public', apiKey: apiKey() });
  const me = await dc.get('/v1/me');
  console.log(`organization ${me.data.organization.name} (${me.data.organization.id}), scopes ${me.data.apiKey.scopes.join(', ')}`);

  let count = 0;
  for await (const debtor of dc.paginate('/v1/debtors', { query: { limit: 10 } })) {
    if (count < 3) console.log(`debtor ${debtor.id} ${debtor.externalId ?? ''} status ${debtor.status}`);
    count += 1;
  }
  console.log(`${count} debtors in all`);

  try {
    await dc.get('/v1/debtors/{id}', { params: { path: { id: 'dbt_00000000000000000000000000' } } });
  } catch (err) {
    if (!isApiError(err, 'not_found')) throw err;
    console.log(`a missing debtor: ${err.status} ${err.code} (request ${err.requestId})`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
