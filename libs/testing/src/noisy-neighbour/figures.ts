import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { Redis } from 'ioredis';
import type { LogLine } from '../service-process';
import { IMPORTER_LIMIT_MIB, NoisyNeighbourProfile } from './profile';
import { quantile } from './tenant-api';

/** B's figures of one run of its mix. */
export interface MixFigures {
  label: 'quiet' | 'beside';
  /** ms of each read. */
  reads: number[];
  /** ms from each payment's event written (outbox row) to its first attempt received by B's receiver. */
  firstAttempts: number[];
  /** B's import: enqueue (its row written) → a run started it; started → finished. */
  importWaitMs?: number;
  importDurationMs?: number;
  importStatus?: string;
  /** Beside A: whether one of A's imports was processing when B's was enqueued (else the wait shows nothing). */
  aImporting?: boolean;
  /** Answers other than the expected 200/201/202, payments whose webhook never arrived, an import that did not complete. */
  errors: Record<string, number>;
  requests: number;
  cpu?: CpuShare;
}

export interface RedisPeak {
  name: 'main' | 'idempotency';
  peakMiB: number;
  /** 0: none set. */
  maxmemoryMiB: number;
  evictedKeys: number;
}

export interface PlatformFigures {
  importerPeakMiB: number;
  redis: RedisPeak[];
  /** Service processes that exited during the run (a restart in a deployment). */
  exited: string[];
  /** Imports not ended by their deadline. */
  stuck: string[];
}

/** What A did and what it got, for the table. */
export interface NoisyFigures {
  /** ms of each slice of A's import work: a chunk (start or previous chunk → chunk merged) or an import's finish. */
  slices: number[];
  imports: { kind: string; outcome: string }[];
  oversizedStatus?: number;
  activities: { activity: string; requests: number; statuses: Record<string, number>; p99Ms: number }[];
  /** Requests that reached A's receivers. */
  receivers: Record<'slow' | 'failing' | 'hanging', number>;
}

export interface Target {
  figure: string;
  value: string;
  bound: string;
  met: boolean;
}

export interface NoisyNeighbourResult {
  profile: NoisyNeighbourProfile;
  quiet: MixFigures;
  beside: MixFigures;
  a: NoisyFigures;
  platform: PlatformFigures;
  targets: Target[];
}

const MIB = 1024 * 1024;
const statusKiB = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0; // the process is gone (counted as exited)
  }
};
const infoField = (info: string, field: string) => Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);

/** Peak resident memory of the importer processes (/proc VmRSS, and VmHWM at the end) and each Redis's peak used_memory (INFO). */
export class PeakSampler {
  private importerKiB = 0;
  private readonly redisBytes = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private sampling?: Promise<void>;

  constructor(
    private readonly importerPids: () => number[],
    private readonly redis: { name: RedisPeak['name']; client: Redis }[],
  ) {}

  start(intervalMs = 250): void {
    this.timer = setInterval(() => {
      this.sampling ??= this.sample().finally(() => (this.sampling = undefined));
    }, intervalMs);
  }

  async stop(): Promise<{ importerPeakMiB: number; redis: RedisPeak[] }> {
    clearInterval(this.timer);
    await this.sampling;
    await this.sample();
    for (const pid of this.importerPids()) this.importerKiB = Math.max(this.importerKiB, statusKiB(pid, 'VmHWM'));
    const redis: RedisPeak[] = [];
    for (const { name, client } of this.redis) {
      const [memory, stats] = [await client.info('memory'), await client.info('stats')];
      const peak = Math.max(this.redisBytes.get(name) ?? 0, infoField(memory, 'used_memory_peak'));
      redis.push({ name, peakMiB: peak / MIB, maxmemoryMiB: infoField(memory, 'maxmemory') / MIB, evictedKeys: infoField(stats, 'evicted_keys') });
    }
    return { importerPeakMiB: this.importerKiB / 1024, redis };
  }

  private async sample(): Promise<void> {
    for (const pid of this.importerPids()) this.importerKiB = Math.max(this.importerKiB, statusKiB(pid, 'VmRSS'));
    for (const { name, client } of this.redis) {
      const used = infoField(await client.info('memory').catch(() => ''), 'used_memory');
      this.redisBytes.set(name, Math.max(this.redisBytes.get(name) ?? 0, used));
    }
  }
}

/** CPU over a window: cores used by this suite's processes and by every other process of the machine. */
export interface CpuShare {
  ours: number;
  others: number;
  /** Share of the time some runnable task waited for a CPU (Linux PSI, /proc/pressure/cpu `some`); NaN without PSI. */
  waiting: number;
}

interface CpuSnapshot {
  at: number;
  total: number;
  ours: number;
  /** PSI `some` total, µs. */
  stalled: number;
}

/**
 * The machine's CPU split between this suite — the processes descending from `roots()` (this
 * process with its services, Redis and NATS; the private Postgres) — and everything else (other test
 * runs on a shared machine), from /proc: a figure that rises beside A for a reason outside A shows here.
 */
export class CpuMeter {
  private readonly ticksPerSecond = 100;

  constructor(private readonly roots: () => number[]) {}

  snapshot(): CpuSnapshot {
    const [, ...cpu] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal: everything but idle and iowait is busy.
    const total = cpu[0] + cpu[1] + cpu[2] + cpu[5] + cpu[6] + cpu[7];
    const procs = new Map<number, { ppid: number; ticks: number }>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // After the command's closing parenthesis: state ppid … utime stime cutime cstime (fields 14-17).
        const f = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ').pop()!.split(' ');
        procs.set(Number(entry), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) });
      } catch {
        // ended meanwhile
      }
    }
    const mine = new Set(this.roots());
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, p] of procs) {
        if (mine.has(pid) || !mine.has(p.ppid)) continue;
        mine.add(pid);
        grew = true;
      }
    }
    let ours = 0;
    for (const pid of mine) ours += procs.get(pid)?.ticks ?? 0;
    let stalled = Number.NaN;
    try {
      stalled = Number(/^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1] ?? Number.NaN);
    } catch {
      // a kernel without PSI
    }
    return { at: Date.now(), total, ours, stalled };
  }

  between(from: CpuSnapshot, to: CpuSnapshot): CpuShare {
    const seconds = (to.at - from.at) / 1000;
    const ours = (to.ours - from.ours) / this.ticksPerSecond / seconds;
    return {
      ours,
      others: Math.max(0, (to.total - from.total) / this.ticksPerSecond / seconds - ours),
      waiting: (to.stalled - from.stalled) / 1e6 / seconds,
    };
  }
}

const SLICE_ENDS = new Set(['import chunk merged', 'import completed', 'import failed', 'import cancelled']);

/**
 * The slices of work of `importIds` in an importer's log (debug level) that ended within [from, to]:
 * from a run's start or its previous chunk to each chunk merged, and from the last chunk to the end
 * of the import (its finish is not sliced). A run that yields logs nothing more: when another
 * import's run starts right after a merged chunk, the handover until then is part of that slice.
 */
export function workSlices(logs: readonly LogLine[], importIds: ReadonlySet<string>, from: number, to: number): number[] {
  const begun = new Map<string, number>();
  const slices: number[] = [];
  let previous: { id: string; msg: string; at: number; slice?: number } | undefined;
  for (const line of logs) {
    const id = line.importId as string | undefined;
    const msg = String(line.msg);
    if (!id || (msg !== 'import started' && !SLICE_ENDS.has(msg))) continue;
    const at = Date.parse(String(line.time));
    let slice: number | undefined;
    if (msg === 'import started') {
      if (previous?.msg === 'import chunk merged' && previous.id !== id && previous.slice !== undefined) slices[previous.slice] += at - previous.at;
    } else if (begun.has(id) && importIds.has(id) && at >= from && at <= to) {
      slice = slices.push(at - begun.get(id)!) - 1;
    }
    begun.set(id, at);
    previous = { id, msg, at, slice };
  }
  return slices;
}

const ms = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '—' : Math.round(n).toLocaleString('en-US'));
const mib = (n: number) => `${n.toFixed(0)} MiB`;
const cpuOf = (c: CpuShare | undefined) => (c ? `${c.ours.toFixed(2)} / ${c.others.toFixed(2)}; ${Number.isNaN(c.waiting) ? '—' : `${(100 * c.waiting).toFixed(0)} %`}` : '—');
const errorsOf = (e: Record<string, number>) => Object.entries(e).map(([k, n]) => `${k} ×${n}`).join(', ') || 'none';

/** Below a p99 this much above quiet, a p99 is not a stall, whatever its ratio (targetsOf). */
export const STALL_SLACK_MS = 100;

/** The suite's targets (bench/README.md, "noisy-neighbour"), each with its figure and bound. */
export function targetsOf(quiet: MixFigures, beside: MixFigures, a: NoisyFigures, platform: PlatformFigures): Target[] {
  const longest = a.slices.length ? Math.max(...a.slices) : Number.NaN;
  const waitBound = longest + (quiet.importWaitMs ?? 0);
  const p99 = (values: number[]) => quantile(values, 0.99);
  // p99 of ~100 samples is their second slowest: on two cores shared by a dozen processes one
  // scheduling delay moves it by tens of ms (B's quiet read p99 ranged 14–36 ms over nine runs of two
  // commits, and a 14 failed 3× with 55). So 3× quiet, or quiet + 100 ms where that is more: a stall
  // (seconds) still fails it.
  const within3 = (figure: string, q: number[], b: number[]): Target => {
    const bound = Math.max(3 * p99(q), p99(q) + STALL_SLACK_MS);
    const rule = 3 * p99(q) >= p99(q) + STALL_SLACK_MS ? '3 × quiet' : `quiet + ${STALL_SLACK_MS}`;
    return { figure, value: `${ms(p99(b))} ms (quiet ${ms(p99(q))})`, bound: `≤ ${rule} = ${ms(bound)} ms`, met: p99(b) <= bound };
  };
  const targets: Target[] = [
    {
      figure: "B's next import: wait (enqueue → started)",
      value: `${ms(beside.importWaitMs)} ms${beside.aImporting ? ", A's import running" : ", A's import NOT running: not measured"}`,
      bound: `≤ A's longest chunk ${ms(longest)} + quiet wait ${ms(quiet.importWaitMs)} = ${ms(waitBound)} ms`,
      met: beside.aImporting === true && beside.importWaitMs !== undefined && beside.importWaitMs <= waitBound,
    },
    within3("B's first-attempt delivery p99", quiet.firstAttempts, beside.firstAttempts),
    within3("B's read p99", quiet.reads, beside.reads),
    { figure: "B's errors", value: `quiet: ${errorsOf(quiet.errors)}; beside: ${errorsOf(beside.errors)}`, bound: 'none', met: !Object.keys({ ...quiet.errors, ...beside.errors }).length },
    { figure: 'importer peak RSS', value: mib(platform.importerPeakMiB), bound: `< ${IMPORTER_LIMIT_MIB} MiB (its limit)`, met: platform.importerPeakMiB < IMPORTER_LIMIT_MIB },
    ...platform.redis.filter((r) => r.maxmemoryMiB > 0).map((r) => ({
      figure: `Redis (${r.name}) peak used_memory`, value: `${mib(r.peakMiB)}, ${r.evictedKeys} keys evicted`, bound: `< maxmemory ${mib(r.maxmemoryMiB)}`, met: r.peakMiB < r.maxmemoryMiB,
    })),
    { figure: 'service processes exited', value: platform.exited.join(', ') || '0', bound: '0', met: !platform.exited.length },
    { figure: 'imports stuck', value: platform.stuck.join('; ') || '0', bound: '0', met: !platform.stuck.length },
  ];
  return targets;
}

/** The run's tables (Markdown): B quiet and beside A, the platform, the targets, and A's load. */
export function noisyNeighbourTable(r: NoisyNeighbourResult): string {
  const { quiet: q, beside: b, a, platform } = r;
  const pair = (values: number[]) => `${ms(quantile(values, 0.5))} / ${ms(quantile(values, 0.99))}`;
  const lines = [
    '| tenant B | quiet (A idle) | beside A |',
    '|---|---|---|',
    `| next import: wait (enqueue → started), ms | ${ms(q.importWaitMs)} | ${ms(b.importWaitMs)} |`,
    `| next import: duration (started → finished), ms | ${ms(q.importDurationMs)} (${q.importStatus ?? '—'}) | ${ms(b.importDurationMs)} (${b.importStatus ?? '—'}) |`,
    `| first-attempt delivery p50 / p99, ms | ${pair(q.firstAttempts)} (n=${q.firstAttempts.length}) | ${pair(b.firstAttempts)} (n=${b.firstAttempts.length}) |`,
    `| read p50 / p99, ms | ${pair(q.reads)} (n=${q.reads.length}) | ${pair(b.reads)} (n=${b.reads.length}) |`,
    `| errors | ${errorsOf(q.errors)} | ${errorsOf(b.errors)} |`,
    `| CPU, cores (of ${cpus().length}): this suite's processes / the machine's other processes; time some task waited for a CPU | ${cpuOf(q.cpu)} | ${cpuOf(b.cpu)} |`,
    '',
    '| platform (whole run) | figure |',
    '|---|---|',
    `| importer peak RSS | ${mib(platform.importerPeakMiB)} (limit ${IMPORTER_LIMIT_MIB} MiB) |`,
    ...platform.redis.map((x) => `| Redis (${x.name}) peak used_memory | ${mib(x.peakMiB)} (${x.maxmemoryMiB ? `maxmemory ${mib(x.maxmemoryMiB)}` : 'no maxmemory, noeviction'}; ${x.evictedKeys} keys evicted) |`),
    `| service processes exited | ${platform.exited.join(', ') || '0'} |`,
    `| imports stuck | ${platform.stuck.join('; ') || '0'} |`,
    '',
    '| target | value | bound | met |',
    '|---|---|---|---|',
    ...r.targets.map((t) => `| ${t.figure} | ${t.value} | ${t.bound} | ${t.met ? 'yes' : '**no**'} |`),
    '',
    '| tenant A (beside B) | what it got |',
    '|---|---|',
    `| chunks of its imports (slices of work) | median ${ms(quantile(a.slices, 0.5))} ms, longest ${ms(Math.max(...a.slices))} ms (n=${a.slices.length}) |`,
    ...a.imports.map((i) => `| import: ${i.kind} | ${i.outcome} |`),
    `| upload declaring IMPORT_MAX_FILE_BYTES + 1 | ${a.oversizedStatus ?? '—'} before the body was sent |`,
    ...a.activities.map((x) => `| ${x.activity} | ${x.requests} requests (${Object.entries(x.statuses).map(([s, n]) => `${s} ×${n}`).join(', ')}), p99 ${ms(x.p99Ms)} ms |`),
    `| webhook requests received: slow (1 s) / failing (500) / hanging | ${a.receivers.slow} / ${a.receivers.failing} / ${a.receivers.hanging} |`,
  ];
  return lines.join('\n');
}
