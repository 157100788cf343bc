// `npm run client:generate`: writes libs/client/src/generated/openapi.d.ts from docs/openapi.json with
// openapi-typescript; with `--check`, exits 1 when the committed file differs from what it would write
// (run by libs/client/src/openapi-types.spec.ts). Plain ESM so it needs no build (docs/adr/0029).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DOCUMENT = 'docs/openapi.json';
const TYPES = 'libs/client/src/generated/openapi.d.ts';
const HEADER = `${COMMENT_HEADER.trimEnd()}\n// Source: ${DOCUMENT}. Regenerate with \`npm run client:generate\` (a unit test fails when stale).\n\n`;

/** The text of the types file for the document as it is now. */
export async function renderClientTypes() {
  const document = JSON.parse(await readFile(path.join(ROOT, DOCUMENT), 'utf8'));
  return HEADER + astToString(await openapiTS(document, { silent: true }));
}

async function main() {
  const text = await renderClientTypes();
  const target = path.join(ROOT, TYPES);
  if (!process.argv.includes('--check')) {
    await writeFile(target, text);
    process.stdout.write(`wrote ${TYPES}\n`);
    return;
  }
  const current = await readFile(target, 'utf8').catch(() => '');
  if (current === text) {
    process.stdout.write(`${TYPES} matches ${DOCUMENT}\n`);
    return;
  }
  const [a, b] = [current.split('\n'), text.split('\n')];
  const line = a.findIndex((l, i) => l !== b[i]) + 1 || Math.min(a.length, b.length) + 1;
  process.stderr.write(`${TYPES} is out of date with ${DOCUMENT} (first difference at line ${line}): run \`npm run client:generate\`.\n`);
  process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exitCode = 1;
  });
}
