// Loading a portfolio from a CSV file (guide "Loading files"; docs/imports.md): upload, preview the
// suggested mapping, dry run, load, and save the refused rows to fix and load again.
//   npm run build && API_KEY=svc_… PORTFOLIO_ID=pf_… MODE=update node dist/libs/client/examples/load-portfolio.js march.csv
// Without API_KEY it uses the demo key `npm run start:all` saved in var/demo.json; without
// PORTFOLIO_ID, the key's first portfolio. MODE: add (default), update, reconcile or replace.
import { createWriteStream, mkdirSync, openAsBlob, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createClient, importsOf, type ColumnMapping, type DcClient, type ImportMode, type ImportView } from '../src'; // in an application: from '@dc/client'

function apiKey(): string {
  if (process.env.API_KEY) return process.env.API_KEY;
  try {
    return (JSON.parse(readFileSync('var/demo.json', 'utf8')) as { key: string }).key;
  } catch {
    throw new Error('set API_KEY (or run `npm run start:all`, which saves a demo key in var/demo.json)');
  }
}

async function portfolioId(dc: DcClient): Promise<string> {
  if (process.env.PORTFOLIO_ID) return process.env.PORTFOLIO_ID;
  for await (const portfolio of dc.paginate('/v1/portfolios', { query: { limit: 1 } })) return portfolio.id;
  throw new Error('the key reaches no portfolio: set PORTFOLIO_ID');
}

function counters(view: ImportView): string {
  return [
    `${view.totalRows} rows: ${view.created} created, ${view.updated} updated (${view.unchanged} of them unchanged), ${view.errors} refused`,
    view.markedPaid ? `, ${view.markedPaid} debts marked paid` : '',
    view.deleted ? `, ${view.deleted} debtors deleted` : '',
    view.paymentsRegistered || view.paymentsSkipped ? `, payments ${view.paymentsRegistered} registered, ${view.paymentsSkipped} already known` : '',
  ].join('');
}

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error('usage: load-portfolio.js <file.csv>');
  const mode = (process.env.MODE ?? 'add') as ImportMode;
  const dc = createClient({ baseUrl: process.env.BASE_URL ?? 'http://localhost:3000/public', apiKey: apiKey() });
  const imports = importsOf(dc);
  const pf = await portfolioId(dc);

  // 1. Upload: upload-url, then the file itself, read from disk as it is sent (up to 1 GiB).
  const storageKey = await imports.upload(pf, await openAsBlob(file), { fileName: path.basename(file) });

  // 2. Preview: how the file reads and which field each column seems to be. Records nothing.
  const preview = await imports.preview(pf, storageKey);
  console.log(`${preview.rowCountEstimated ? '~' : ''}${preview.rowCount} rows, delimiter ${JSON.stringify(preview.delimiter)}; loadable until ${preview.expiresAt}`);
  for (const s of preview.suggestedMapping) {
    console.log(`  ${s.sourceColumn} → ${s.targetField ?? '(ignored)'}${s.targetField ? ` (${s.confidence}, ${s.reason ?? s.reasonCode})` : ''}`);
  }
  for (const warning of preview.warnings) console.log(`  warning: ${warning}`);
  // The suggestion's non-null pairs are a valid columnMapping when the file allows one; review it,
  // or write your own (unmapped columns are ignored).
  const columnMapping: ColumnMapping[] = preview.suggestedMapping
    .filter((s) => s.targetField !== null)
    .map(({ sourceColumn, targetField }) => ({ sourceColumn, targetField }));

  // 3. Dry run: the whole load in this mode, nothing written; the counters a real run would have.
  const dry = await imports.run(pf, { storageKey, columnMapping, conflictResolution: mode, dryRun: true });
  if (dry.status === 'failed') throw new Error(`the dry run failed: ${dry.failureReason}`);
  console.log(`dry run (${mode}): ${counters(dry)}`);

  // 4. The real load, of the same key (still valid until expiresAt), printing progress as it polls.
  const load = await imports.run(pf, { storageKey, columnMapping, conflictResolution: mode }, {
    onProgress: (v) => console.log(`  ${v.status} ${v.processedRows}/${v.totalRows}`),
  });
  if (load.status === 'failed') throw new Error(`import ${load.id} failed: ${load.failureReason}`);
  console.log(`import ${load.id}: ${counters(load)}`);
  if (load.errors === 0) return;

  // 5. Every refused row, as a CSV in the file's own columns plus error_row, error_column, error_message.
  mkdirSync('var', { recursive: true });
  const out = path.join('var', `${load.id}-rejected-rows.csv`);
  await pipeline(Readable.fromWeb(await imports.rejectedRows(load.id)), createWriteStream(out));
  console.log(`${load.errors} refused rows in ${out}`);
  // 6. Fix them (a spreadsheet, or a script) and load that file again the same way, with the same
  //    mapping and mode: `node …/load-portfolio.js var/imp_…-rejected-rows.csv`. The three error
  //    columns may stay (not mapped, so ignored) or go. A cell starting with =, @, a tab or CR, or + or -
  //    not followed by a number or a phone, was saved with a leading apostrophe so that a spreadsheet
  //    shows it as text, not a formula: leave it, the importer removes it.
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
