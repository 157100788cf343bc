/**
 * The long fuzz profile (docs/adr/0015): 10,000 seeded requests generated from
 * docs/openapi.json against a stack of its own, every answer checked against the document.
 * Run: npm run fuzz [-- --seed 42 --count 20000 --concurrency 8]   (or FUZZ_SEED / FUZZ_COUNT)
 * Exits 1 when an answer is outside the document, a 5xx, or a process exited.
 */
import { dropDatabase, formatReport, FUZZ_STACK_ENV, OpenApiContract, prepareFuzzTenant, prepareTemplateDatabase, runFuzz, Stack } from '@dc/testing';

function option(name: string, env: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const raw = i >= 0 ? process.argv[i + 1] : process.env[env];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} / ${env} must be a whole number, got ${raw}`);
  return value;
}

async function main(): Promise<void> {
  const seed = option('seed', 'FUZZ_SEED', Date.now() % 1_000_000);
  const count = option('count', 'FUZZ_COUNT', 10_000);
  const concurrency = option('concurrency', 'FUZZ_CONCURRENCY', 8);
  const template = await prepareTemplateDatabase();
  let stack: Stack | undefined;
  try {
    stack = await Stack.start({ env: FUZZ_STACK_ENV });
    const tenant = await prepareFuzzTenant(stack);
    console.log(`fuzzing ${stack.publicUrl} with seed ${seed}: ${count} requests, ${concurrency} at a time`);
    const report = await runFuzz(stack, OpenApiContract.load(), tenant, {
      seed,
      count,
      concurrency,
      oversized: true,
      progress: (line) => process.stderr.write(`${line}\n`),
    });
    console.log(formatReport(report));
    if (report.violations || report.serverErrors || report.exits.length) process.exitCode = 1;
  } finally {
    await stack?.stop();
    await dropDatabase(template);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
