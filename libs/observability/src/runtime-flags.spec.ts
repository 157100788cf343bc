import { spawnSync } from 'node:child_process';
import { missingNodeArgs, SERVICE_NODE_ARGS, SERVICE_V8_FLAGS } from './runtime-flags';

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

describe('service node options (SERVICE_NODE_ARGS)', () => {
  it('keep the gateway’s old-generation limit at 96 MiB or more, where V8 alone sets it far lower', () => {
    expect(oldGenerationLimitKb(SERVICE_NODE_ARGS.gateway)).toBeGreaterThanOrEqual(96 * 1024);
    expect(oldGenerationLimitKb([])).toBeLessThan(64 * 1024);
  });

  it('names the options a process was started without', () => {
    expect(missingNodeArgs('gateway', [])).toEqual(['--initial-old-space-size=96']);
    expect(missingNodeArgs('gateway', ['--inspect', '--initial-old-space-size=96'])).toEqual([]);
    expect(missingNodeArgs('api-core', [])).toEqual([]);
  });
});
