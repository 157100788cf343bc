import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Resident set size of a process in MiB (VmRSS, /proc/<pid>/status), or NaN when it is gone. */
export function rssMiB(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU seconds (user + system) a process has used so far (/proc/<pid>/stat utime + stime), plus,
 * with `reapedChildren`, those of its children that have ended (cutime + cstime).
 */
export function cpuSeconds(pid: number, reapedChildren = false): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces: utime, stime,
  // cutime and cstime are fields 14 to 17 of the line, 12 to 15 after ")".
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return (reapedChildren ? own + Number(fields[13]) + Number(fields[14]) : own) / CLOCK_TICKS;
}

/**
 * Samples the RSS of named processes every `intervalMs` while running; `max()` gives the highest
 * sample per name since start (one sample is taken at start and at stop too).
 */
export class RssSampler {
  private readonly peaks = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pids: Record<string, number>,
    private readonly intervalMs = 500,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    return this;
  }

  stop(): Map<string, number> {
    clearInterval(this.timer);
    this.sample();
    return this.peaks;
  }

  private sample(): void {
    for (const [name, pid] of Object.entries(this.pids)) {
      const mib = rssMiB(pid);
      if (!Number.isNaN(mib)) this.peaks.set(name, Math.max(this.peaks.get(name) ?? 0, mib));
    }
  }
}

/**
 * CPU seconds used so far by every process whose command name (/proc/<pid>/stat, at most 15
 * characters) is one of `names`, summed per name: the shared servers (postgres backends,
 * nats-server, redis-server), whose work per request counts as much as the services'. Ended
 * children count too, through their parent: a Postgres backend that ends (a pool closes a
 * connection idle for 10 s, as both systems' pools do while the other system runs) takes its CPU
 * time out of the living processes' sum and into the postmaster's. Without it, a run during which
 * the other system's backends ended showed negative Postgres CPU.
 */
export function cpuSecondsByCommand(names: readonly string[]): Record<string, number> {
  const totals: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (command in totals) totals[command] += cpuSeconds(Number(entry), true);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return totals;
}
