import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_LOG_BUFFER_BYTES } from '@dc/config';
import { createTestDatabase } from './test-database';
import { AppName, GATEWAY_TEST_ENTRY, ServiceProcess } from './service-process';
import { freePort } from './ports';

export const OPERATOR_TOKEN = 'test-operator-token-0123456789abcdef';

/** Benchmarks log as production does, lines gathered before each write (a Stack writes each line at once, for tests that read them). */
export const PRODUCTION_LOGGING: Record<string, string> = { LOG_BUFFER_BYTES: String(DEFAULT_LOG_BUFFER_BYTES) };

export interface StackOptions {
  apiCoreReplicas?: number;
  gatewayReplicas?: number;
  /** Extra environment for every service (e.g. RATE_LIMIT_PER_MINUTE). */
  env?: Record<string, string>;
  /** Extra environment of one app only, over `env` (e.g. each service's Redis ACL user). */
  appEnv?: Partial<Record<AppName, Record<string, string>>>;
  /** Write a V8 CPU profile of every service into this directory (benchmarks' `--profile`). */
  cpuProfileDir?: string;
  /**
   * Use this database (already migrated; kept on stop) instead of a fresh clone of the run's template:
   * the fault suite's private Postgres cluster. `url` is the admin's (assertions), `appUrl` the apps'.
   */
  database?: { url: string; appUrl: string };
}

/**
 * The system wired as in production — separate gateway and api-core processes talking over the
 * real NATS, Redis and Postgres — but isolated per test file: its own database, and its own NATS
 * subject namespace and Redis key prefix, so parallel files never answer each other's requests.
 *
 * Uploads (local storage driver): a fresh STORAGE_LOCAL_DIR per stack (`storageDir`, removed on
 * stop), and the first gateway listens on a fixed port named by PUBLIC_BASE_URL in every service's
 * environment, so the upload URLs api-core signs reach it. Further gateways listen on any port.
 */
export class Stack {
  readonly gateways: { process: ServiceProcess; publicUrl: string; operatorUrl: string }[] = [];
  readonly apiCores: ServiceProcess[] = [];
  private readonly extra: ServiceProcess[] = [];
  /** Gateways not yet listening: stopped too when the start of another service fails (no orphan left running). */
  private readonly startingGateways = new Set<ServiceProcess>();
  /** The gateway listening on PUBLIC_BASE_URL's port. */
  private publicPortHolder: ServiceProcess | undefined;

  private constructor(
    readonly env: Record<string, string>,
    readonly databaseUrl: string,
    private readonly dropDatabase: () => Promise<void>,
    private readonly nodeArgs: string[],
    /** STORAGE_LOCAL_DIR of every service: where the local driver keeps uploaded files. */
    readonly storageDir: string,
    /** The port of PUBLIC_BASE_URL. */
    private readonly publicPort: number,
    private readonly appEnv: Partial<Record<AppName, Record<string, string>>> = {},
  ) {}

  static async start(options: StackOptions = {}): Promise<Stack> {
    const db = options.database ? { ...options.database, drop: async () => undefined } : await createTestDatabase();
    const storageDir = await mkdtemp(path.join(tmpdir(), 'dc-stack-uploads-'));
    const publicPort = await freePort();
    const namespace = `t${process.pid}${randomBytes(3).toString('hex')}`;
    const env: Record<string, string> = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      // Tests read each service's lines as they are written (production gathers them: LOG_BUFFER_BYTES).
      LOG_BUFFER_BYTES: '0',
      // The services log in as the apps' role (no DDL); `databaseUrl` (assertions) is the admin's.
      DATABASE_URL: db.appUrl,
      DATABASE_POOL_SIZE: '4',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: namespace,
      NATS_URL: 'nats://127.0.0.1:4222',
      NATS_SUBJECT_PREFIX: namespace,
      NATS_REQUEST_TIMEOUT_MS: '5000',
      DATABASE_STATEMENT_TIMEOUT_MS: '4000', // shorter than the request timeout (libs/config)
      OPERATOR_TOKEN,
      PORT: '0',
      OPERATOR_PORT: '0',
      HEALTH_PORT: '0',
      HOST: '127.0.0.1',
      SHUTDOWN_GRACE_MS: '3000',
      STORAGE_LOCAL_DIR: storageDir,
      PUBLIC_BASE_URL: `http://127.0.0.1:${publicPort}`,
      ...options.env,
    };
    const nodeArgs = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
    const stack = new Stack(env, db.url, db.drop, nodeArgs, storageDir, publicPort, options.appEnv);
    try {
      await Promise.all([
        ...Array.from({ length: options.apiCoreReplicas ?? 1 }, () => stack.startApiCore()),
        ...Array.from({ length: options.gatewayReplicas ?? 1 }, () => stack.startGateway()),
      ]);
    } catch (err) {
      await stack.stop();
      throw err;
    }
    return stack;
  }

  get publicUrl(): string {
    return this.gateways[0].publicUrl;
  }

  get operatorUrl(): string {
    return this.gateways[0].operatorUrl;
  }

  async startApiCore(): Promise<ServiceProcess> {
    const core = new ServiceProcess('api-core', { ...this.env, ...this.appEnv['api-core'] }, this.nodeArgs);
    this.apiCores.push(core);
    await core.waitForLog((l) => l.msg === 'api-core ready');
    return core;
  }

  /**
   * A gateway. The first one (or one started after it died, unless `env` sets PORT) takes
   * PUBLIC_BASE_URL's port and becomes `gateways[0]`; the others listen on any free port.
   */
  async startGateway(env: Record<string, string> = {}): Promise<{ process: ServiceProcess; publicUrl: string; operatorUrl: string }> {
    const takesPublicPort = env.PORT === undefined && !this.publicPortHolder?.running;
    const port: Record<string, string> = takesPublicPort ? { PORT: String(this.publicPort) } : {};
    // Where the test entry records its public exchanges for the run's contract check (exchange-contract.ts).
    const recording: Record<string, string> = process.env.DC_TEST_LOG_DIR ? { DC_TEST_LOG_DIR: process.env.DC_TEST_LOG_DIR } : {};
    const gateway = new ServiceProcess('gateway', { ...this.env, ...this.appEnv.gateway, ...port, ...recording, ...env }, this.nodeArgs, GATEWAY_TEST_ENTRY);
    if (takesPublicPort) this.publicPortHolder = gateway;
    this.startingGateways.add(gateway);
    const line = await gateway.waitForLog((l) => l.msg === 'gateway listening').finally(() => this.startingGateways.delete(gateway));
    const entry = {
      process: gateway,
      publicUrl: `http://127.0.0.1:${String(line.publicPort)}`,
      operatorUrl: `http://127.0.0.1:${String(line.operatorPort)}`,
    };
    if (takesPublicPort) this.gateways.unshift(entry);
    else this.gateways.push(entry);
    return entry;
  }

  async startService(app: AppName, env: Record<string, string> = {}): Promise<ServiceProcess> {
    const service = new ServiceProcess(app, { ...this.env, ...this.appEnv[app], ...env }, this.nodeArgs);
    this.extra.push(service);
    return service;
  }

  /** Stops collecting log lines of every process (benchmarks: logging stays on, as in production). */
  discardLogs(): void {
    for (const p of [...this.gateways.map((g) => g.process), ...this.apiCores, ...this.extra]) {
      p.retainLogs = false;
      p.logs.length = 0;
    }
  }

  async stop(): Promise<void> {
    // A profiled process writes its profile only when it exits by itself.
    const signal = this.nodeArgs.length ? 'SIGTERM' : 'SIGKILL';
    await Promise.all([...this.gateways.map((g) => g.process), ...this.startingGateways, ...this.apiCores, ...this.extra].map((p) => p.stop(signal)));
    await this.dropDatabase();
    await rm(this.storageDir, { recursive: true, force: true });
  }
}
