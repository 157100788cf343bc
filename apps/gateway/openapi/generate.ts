import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PUBLIC_CONTROLLERS } from '../src/public';
import { ContractSchemas } from './contract-schemas';
import { readGuides } from './guides';
import { buildOpenApiDocument, WebhookDoc } from './openapi-document';

/**
 * Writes docs/openapi.json from the gateway's public controllers and libs/contracts
 * (`npm run openapi`), or with `--check` fails when the committed document is stale. A build tool:
 * nothing in src imports it, so its schema generators never load in the running gateway.
 */
// Compiled to dist/apps/gateway/openapi/generate.js: four levels below the repository root.
const ROOT = path.resolve(__dirname, '../../../..');
const OUTPUT = path.join(ROOT, 'docs/openapi.json');

/** The spec's latest v1 release. */
const API_VERSION = '1.9.1';

const WEBHOOKS: WebhookDoc[] = [
  { event: 'payment.registered', summary: 'A payment was registered individually (API, panel, collection link, fulfilled promise)', dataType: 'PaymentView' },
  { event: 'promise.created', summary: 'A promise of payment was created', dataType: 'PromiseView' },
  { event: 'call.completed', summary: 'A call completed (the call list item, without analysis)', dataType: 'CallListItemView' },
];

function main(): void {
  const document = buildOpenApiDocument({
    version: API_VERSION,
    controllers: PUBLIC_CONTROLLERS,
    schemas: new ContractSchemas(ROOT),
    webhooks: WEBHOOKS,
    description: readGuides(path.join(ROOT, 'apps/gateway/openapi/guides')),
  });
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (process.argv.includes('--check')) {
    const committed = readFileSync(OUTPUT, 'utf8');
    if (committed !== text) {
      process.stderr.write('docs/openapi.json is out of date with the code: run `npm run openapi` and commit it.\n');
      process.exit(1);
    }
    process.stdout.write('docs/openapi.json matches the code\n');
    return;
  }
  writeFileSync(OUTPUT, text);
  process.stdout.write(`wrote ${path.relative(ROOT, OUTPUT)}\n`);
}

main();
