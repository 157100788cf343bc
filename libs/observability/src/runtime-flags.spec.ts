import { spawnSync } from 'node:child_process';
import { missingNodeArgs, SERVICE_NODE_ARGS, SERVICE_V8_FLAGS, serviceNodeArgs } from './runtime-flags';

/**
 * The flags are set at run time (v8.setFlagsFromString), which V8 does not promise to honour for
 * every flag: this runs a Node process that sets them the same way, keeps ~17 MiB alive through a
 * full collection and reads the old generation's next limit from V8's own trace.
 */
function oldGenerationGrowingFactor(flags: readonly string[]): string {
  const script = `
    for (const flag of JSON.parse(process.argv[1])) require('node:v8').setFlagsFromString(flag);
    const live = [];
    for (let i = 0; i < 200000; i++) live.push({ i, s: 'x' + i });
    globalThis.gc();
  `;
  const run = spawnSync(process.execPath, ['--expose-gc', '--trace-gc-verbose', '-e', script, JSON.stringify(flags)], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  const limits = [...run.stdout.matchAll(/\[HeapController\] Limit: old size: \d+ KB, new limit: \d+ KB \(([\d.]+)\)/g)];
  expect(limits.length).toBeGreaterThan(0);
  return limits.at(-1)![1];
}

describe('service V8 flags', () => {
  it('lets the old generation grow to twice what survived a full collection', () => {
    expect(oldGenerationGrowingFactor(SERVICE_V8_FLAGS)).toBe('2.0');
  });

  it("replaces V8's own growing factor, which differs here", () => {
    expect(oldGenerationGrowingFactor([])).not.toBe('2.0');
  });
});

/** The old generation's limit after a full collection of a small heap, from V8's own trace (KB). */
function oldGenerationLimitKb(nodeArgs: readonly string[]): number {
  const run = spawnSync(process.execPath, [...nodeArgs, '--expose-gc', '--trace-gc-verbose', '-e', 'globalThis.gc()'], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  const limits = [...run.stdout.matchAll(/\[HeapController\] Limit: old size: \d+ KB, new limit: (\d+) KB/g)];
  expect(limits.length).toBeGreaterThan(0);
  return Number(limits.at(-1)![1]);
}

/** The young generation's size once it has grown as far as it may, from V8's own statistics (MiB). */
function youngGenerationMiB(nodeArgs: readonly string[]): number {
  const script = `
    let keep = [];
    for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 50000) keep = []; }
    const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    console.log(space.space_size / 1048576);
  `;
  const run = spawnSync(process.execPath, [...nodeArgs, '-e', script], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  return Number(run.stdout.trim());
}

describe('service node options (SERVICE_NODE_ARGS)', () => {
  it('keep the gateway’s old-generation limit at 80 MiB or more, where V8 alone sets it far lower', () => {
    expect(oldGenerationLimitKb(SERVICE_NODE_ARGS.gateway)).toBeGreaterThanOrEqual(80 * 1024);
    expect(oldGenerationLimitKb([])).toBeLessThan(64 * 1024);
  });

  it('keep the young generation of the gateway and api-core at 16 MiB, where V8 alone gives it 32', () => {
    expect(youngGenerationMiB(SERVICE_NODE_ARGS.gateway)).toBe(16);
    expect(youngGenerationMiB(SERVICE_NODE_ARGS['api-core'])).toBe(16);
    expect(youngGenerationMiB([])).toBe(32);
  });

  it('names the options a process was started without, leaving out the patches turned off', () => {
    expect(missingNodeArgs('gateway', new Set(), [])).toEqual(['--initial-old-space-size=80', '--max-semi-space-size=8']);
    expect(missingNodeArgs('gateway', new Set(), ['--inspect', '--initial-old-space-size=80', '--max-semi-space-size=8'])).toEqual([]);
    expect(missingNodeArgs('gateway', new Set(['young-generation-16mib']), [])).toEqual(['--initial-old-space-size=80']);
    expect(missingNodeArgs('api-core', new Set(), [])).toEqual(['--max-semi-space-size=8']);
    expect(missingNodeArgs('importer', new Set(), [])).toEqual([]);
  });

  it('gives every service the options of its patches, none of those turned off', () => {
    expect(serviceNodeArgs('gateway')).toEqual(['--initial-old-space-size=80', '--max-semi-space-size=8']);
    expect(serviceNodeArgs('gateway', new Set(['gateway-old-space-floor', 'young-generation-16mib']))).toEqual([]);
    expect(SERVICE_NODE_ARGS).toEqual({
      gateway: ['--initial-old-space-size=80', '--max-semi-space-size=8'],
      'api-core': ['--max-semi-space-size=8'],
      importer: [],
      'webhook-dispatcher': [],
    });
  });
});
