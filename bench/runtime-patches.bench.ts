import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { execFileSync } from 'node:child_process';
import { CreateCallDto, DebtorBatchDto } from '@dc/contracts';
import { cacheValidationMetadata } from '@dc/validation';
import { batchBody } from './baseline/batch';

/**
 * The runtime patch `validation-metadata-cache` (docs/runtime-patches.md) measured alone: the CPU of
 * the gateway's slow validation path (class-transformer, then class-validator with the gateway's
 * options), which since `compiled-validation` only invalid bodies and uncompiled DTOs take. Each
 * variant runs in a child process of its own (the patch cannot be removed once installed), the two
 * alternating round after round on the same cores; the table gives CPU µs per validation.
 *
 *   npm run bench:patches [-- --rounds 7 --iterations 300]
 */
const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true, stopAtFirstError: true, validationError: { target: false, value: false } };

const invalidBatch = (() => {
  const body = JSON.parse(batchBody('inv', 500)) as { debtors: { debts: { currency: string }[] }[] };
  body.debtors[499].debts[0].currency = 'EURO';
  return body;
})();
const call = { direction: 'outbound', status: 'completed', outcomes: ['no_answer'], toNumber: '+34600000001', effectiveDurationSec: 30 };
const CASES: Record<string, { cls: new () => object; body: object; iterations: number }> = {
  'debtor batch, 500 × 2 × 2, one error': { cls: DebtorBatchDto, body: invalidBatch, iterations: 1 },
  'call (not compiled)': { cls: CreateCallDto, body: call, iterations: 50 },
};

async function child(variant: string, iterations: number): Promise<void> {
  if (variant === 'cache') cacheValidationMetadata();
  const result: Record<string, number> = {};
  for (const [name, { cls, body, iterations: each }] of Object.entries(CASES)) {
    const run = () => validate(plainToInstance(cls, body) as object, OPTIONS);
    for (let i = 0; i < 20; i++) await run();
    const n = Math.max(1, Math.round((iterations * each) / 10));
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) await run();
    const used = process.cpuUsage(start);
    result[name] = (used.user + used.system) / n;
  }
  process.stdout.write(JSON.stringify(result));
}

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function main(): void {
  const rounds = arg('rounds', 7);
  const iterations = arg('iterations', 300);
  const runs: Record<string, Record<string, number[]>> = { plain: {}, cache: {} };
  for (let round = 0; round < rounds; round++) {
    for (const variant of round % 2 ? ['cache', 'plain'] : ['plain', 'cache']) {
      const out = execFileSync(process.execPath, [__filename, '--child', variant, '--iterations', String(iterations)], { encoding: 'utf8' });
      for (const [name, us] of Object.entries(JSON.parse(out) as Record<string, number>)) (runs[variant][name] ??= []).push(us);
    }
  }
  console.log(`\nvalidation-metadata-cache: CPU µs per validation, median of ${rounds} rounds (min–max)\n`);
  console.log('| case | without the patch | with it | with ÷ without |');
  console.log('|---|---|---|---|');
  for (const name of Object.keys(CASES)) {
    const [plain, cache] = [runs.plain[name], runs.cache[name]];
    const fmt = (v: number[]) => `${median(v).toFixed(0)} (${Math.min(...v).toFixed(0)}–${Math.max(...v).toFixed(0)})`;
    console.log(`| ${name} | ${fmt(plain)} | ${fmt(cache)} | ${(median(cache) / median(plain)).toFixed(2)} |`);
  }
}

const childAt = process.argv.indexOf('--child');
if (childAt > 0) void child(process.argv[childAt + 1], arg('iterations', 300));
else main();
