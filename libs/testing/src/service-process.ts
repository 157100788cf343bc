import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { parseRuntimePatchesOff } from '@dc/config';
import { serviceNodeArgs } from '@dc/observability';

// libs/testing/src under ts-jest, or dist/libs/testing/src when a compiled bench imports it.
const UP = path.resolve(__dirname, '../../..');
export const REPO_ROOT = path.basename(UP) === 'dist' ? path.dirname(UP) : UP;
const ROOT = REPO_ROOT;

/** The gateway as Stack starts it: the production app plus test-only routes (apps/gateway/testing/main.ts). */
export const GATEWAY_TEST_ENTRY = 'dist/apps/gateway/testing/main.js';

export type AppName = 'gateway' | 'api-core' | 'importer' | 'webhook-dispatcher';
export type LogLine = Record<string, unknown> & { msg?: string };

/**
 * One service running as in production: the compiled app (`npm run build`) in its own Node
 * process, configured only through its environment. Its JSON log lines are kept for assertions.
 */
export class ServiceProcess {
  readonly logs: LogLine[] = [];
  /** Benchmarks turn this off once the service is up, so log lines cost the load generator nothing. */
  retainLogs = true;
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  private stderr = '';

  constructor(
    readonly app: AppName,
    env: Record<string, string>,
    nodeArgs: string[] = [],
    /** The compiled entry point below the repository root; the app's production one by default. */
    entry = `dist/apps/${app}/src/main.js`,
  ) {
    // Started as in production: with the service's heap options (docs/adr/0037) and its runtime
    // patches, unless the test run turns them off (RUNTIME_PATCHES_OFF, `npm run test:e2e:unpatched`).
    const patchesOff = env.RUNTIME_PATCHES_OFF ?? process.env.RUNTIME_PATCHES_OFF;
    const heapArgs = serviceNodeArgs(app, parseRuntimePatchesOff(patchesOff).off);
    this.child = spawn(process.execPath, [...heapArgs, ...nodeArgs, path.join(ROOT, entry)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...(patchesOff === undefined ? {} : { RUNTIME_PATCHES_OFF: patchesOff }), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffer = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      if (!this.retainLogs) return;
      buffer += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        try {
          this.logs.push(JSON.parse(line) as LogLine);
        } catch {
          this.logs.push({ msg: line });
        }
      }
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    // An end-to-end run keeps every service's output, searched for secrets at its end (log-audit.ts).
    const logDir = process.env.DC_TEST_LOG_DIR;
    if (logDir) {
      const file = createWriteStream(path.join(logDir, `${app}-${String(this.child.pid)}.log`), { flags: 'a' });
      this.child.stdout!.pipe(file, { end: false });
      this.child.stderr!.pipe(file, { end: false });
      this.child.once('close', () => file.end());
    }
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Whether the process is still running: it has neither exited nor been killed by a signal. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** How it ended (`code 1`, `signal SIGSEGV`), or undefined while it runs. */
  get exitDescription(): string | undefined {
    if (this.child.signalCode !== null) return `signal ${this.child.signalCode}`;
    return this.child.exitCode === null ? undefined : `code ${this.child.exitCode}`;
  }

  async waitForLog(predicate: (line: LogLine) => boolean, timeoutMs = 15_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.logs.find(predicate);
      if (found) return found;
      if (this.child.exitCode !== null) throw new Error(`${this.app} exited (${this.child.exitCode}): ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`${this.app}: no matching log line within ${timeoutMs} ms. stderr: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Sends SIGTERM (graceful) or SIGKILL and waits for the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }

  exitCode(): Promise<number | null> {
    return this.exited;
  }

  get errorOutput(): string {
    return this.stderr;
  }
}
