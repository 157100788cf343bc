import { deadProcesses, formatReport, FUZZ_STACK_ENV, FuzzReport, FuzzTenant, OpenApiContract, prepareFuzzTenant, runFuzz, Stack } from '@dc/testing';

/**
 * docs/adr/0015: about 1,000 seeded requests generated from docs/openapi.json —
 * valid, boundary and hostile — against gateway and api-core as separate processes. Every answer
 * must be one the document gives for the operation (status, schema, envelope), none may be 5xx, and
 * no process may exit. `npm run fuzz` runs the long profile (10,000+) with the same generator.
 */
describe('fuzzing the public API from its OpenAPI document', () => {
  const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
  const COUNT = Number(process.env.FUZZ_COUNT ?? 1000);
  let stack: Stack;
  let tenant: FuzzTenant;
  let report: FuzzReport;

  beforeAll(async () => {
    stack = await Stack.start({ env: FUZZ_STACK_ENV });
    tenant = await prepareFuzzTenant(stack);
    report = await runFuzz(stack, OpenApiContract.load(), tenant, { seed: SEED, count: COUNT });
    if (report.violations || report.exits.length) console.log(formatReport(report));
  }, 110_000);
  afterAll(() => stack?.stop());

  it(`sends ${COUNT} requests covering every operation of the document`, () => {
    expect(report.requests).toBe(COUNT);
    expect(report.byKind.get('valid')?.requests).toBeGreaterThan(COUNT / 5);
    expect([...report.byKind.keys()].some((k) => k.startsWith('deep-'))).toBe(true);
  });

  it('no process exited, and every one still runs at the end', () => {
    expect(report.exits).toEqual([]);
    expect(deadProcesses(stack)).toEqual([]);
  });

  it('no answer is a 5xx', () => {
    expect(report.serverErrors).toBe(0);
  });

  it('every answer is documented for its operation, valid against its schema, and errors use the envelope', () => {
    expect(report.findings.map((f) => `${f.violations.map((v) => v.detail).join(' / ')} ← ${f.input} → ${f.answer}`)).toEqual([]);
    expect(report.violations).toBe(0);
  });
});
