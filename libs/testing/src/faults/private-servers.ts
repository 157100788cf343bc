import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { appendFileSync, chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { accepts, freePort } from '../ports';
import { REPO_ROOT } from '../service-process';
import { APP_ROLE } from '../test-database';

/**
 * Private Redis, NATS and Postgres servers for the fault suite (docs/adr/0028): each on its own free
 * port and data directory, so the suite can stop and restart them while the machine's shared servers
 * (6379, 4222, 5432) stay untouched. A server keeps its port across restarts, as a container keeps its
 * service address, so the apps reconnect to the same URL.
 */

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface PrivateServer {
  readonly name: 'redis' | 'nats' | 'postgres';
  readonly url: string;
  start(): Promise<void>;
  /** A graceful stop, as `docker stop` does (SIGTERM; Postgres: fast shutdown). */
  stop(): Promise<void>;
  /** Stops it for good and removes its data directory. */
  destroy(): Promise<void>;
}

/** A child process whose exit can be awaited. */
class Daemon {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  output = '';

  constructor(private readonly command: string, private readonly args: string[], private readonly env?: Record<string, string>) {}

  spawn(): void {
    const child = spawn(this.command, this.args, { stdio: ['ignore', 'pipe', 'pipe'], ...(this.env ? { env: this.env } : {}) });
    const keep = (c: Buffer) => (this.output = (this.output + c.toString('utf8')).slice(-4_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.child = child;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    if (this.running) this.child!.kill(signal);
    await this.exited;
  }
}

/** A server that is one child process on 127.0.0.1:`port` with its data in `dir`: ready once the port accepts. */
abstract class DaemonServer implements PrivateServer {
  abstract readonly name: 'redis' | 'nats';
  protected abstract readonly scheme: string;

  protected constructor(readonly port: number, private readonly dir: string, private readonly daemon: Daemon) {}

  get url(): string {
    return `${this.scheme}://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.daemon.spawn();
    await until(`${this.name} :${this.port} (${this.daemon.output})`, () => accepts(this.port));
  }

  stop(): Promise<void> {
    return this.daemon.kill('SIGTERM');
  }

  async destroy(): Promise<void> {
    await this.daemon.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Redis as compose runs it: `--appendonly yes` (every write in the AOF, fsync every second), so a stop
 * and restart keeps the BullMQ queues, idempotency records and rate-limit counters. `args` adds
 * compose's other options (e.g. the idempotency Redis's `--maxmemory 256mb --maxmemory-policy allkeys-lru`).
 */
export class PrivateRedis extends DaemonServer {
  readonly name = 'redis' as const;
  protected readonly scheme = 'redis';

  static async create(args: string[] = []): Promise<PrivateRedis> {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'dc-faults-redis-'));
    const redis = new PrivateRedis(port, dir, new Daemon('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir, '--protected-mode', 'no', ...args,
    ]));
    await redis.start();
    return redis;
  }
}

/** What to add to a private nats-server's configuration (e.g. the rendered `authorization` block) and its environment. */
export interface PrivateNatsOptions {
  config?: string;
  /** nats-server's environment: the `$VARIABLE`s the configuration refers to (passwords). */
  env?: Record<string, string>;
}

/** nats-server with JetStream and the repository's max_payload (docker/nats.conf: 8MB). */
export class PrivateNats extends DaemonServer {
  readonly name = 'nats' as const;
  protected readonly scheme = 'nats';

  static async create(options: PrivateNatsOptions = {}): Promise<PrivateNats> {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'dc-private-nats-'));
    const conf = path.join(dir, 'nats.conf');
    writeFileSync(conf, `listen: 127.0.0.1:${port}\nmax_payload: 8MB\njetstream {\n  store_dir: ${JSON.stringify(path.join(dir, 'js'))}\n}\n${options.config ?? ''}\n`);
    const nats = new PrivateNats(port, dir, new Daemon('/usr/sbin/nats-server', ['-c', conf], options.env));
    await nats.start();
    return nats;
  }
}

const PG_BIN = '/usr/lib/postgresql/15/bin';

/**
 * A private Postgres cluster (initdb, trust authentication on 127.0.0.1), migrated with the same
 * `scripts/migrate.js` operators run. Run as the `postgres` OS user when this process is root
 * (Postgres refuses to run as root). Stopped with a fast shutdown (what the official image's
 * SIGINT stop signal does): every session is cut, in-flight transactions roll back.
 */
export class PrivatePostgres implements PrivateServer {
  readonly name = 'postgres' as const;

  private constructor(readonly port: number, private readonly dir: string) {}

  static async create(): Promise<PrivatePostgres> {
    const base = mkdtempSync(path.join(tmpdir(), 'dc-faults-pg-'));
    chmodSync(base, 0o755);
    const dir = path.join(base, 'data');
    const pg = new PrivatePostgres(await freePort(), dir);
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      const { uid, gid } = userIds('postgres');
      chownSync(base, uid, gid);
    }
    await pg.run('initdb', ['-D', dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']);
    writeFileSync(path.join(dir, 'postgresql.auto.conf'), [
      `port = ${pg.port}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${base}'`, 'max_connections = 200',
      'shared_buffers = 64MB', 'autovacuum = off', '',
    ].join('\n'));
    if (asRoot) {
      const { uid, gid } = userIds('postgres');
      chownSync(path.join(dir, 'postgresql.auto.conf'), uid, gid);
    }
    await pg.start();
    return pg;
  }

  /**
   * A streaming replica of `primary` (docs/adr/0050): `pg_basebackup -R` of the primary (initdb's
   * trust authentication admits replication connections from 127.0.0.1), on a free port of its own,
   * hot standby, started. It has the primary's databases and roles (`url`, `appUrl` name the same ones).
   */
  static async replicaOf(primary: PrivatePostgres): Promise<PrivatePostgres> {
    const base = mkdtempSync(path.join(tmpdir(), 'dc-replica-pg-'));
    chmodSync(base, 0o755);
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      const { uid, gid } = userIds('postgres');
      chownSync(base, uid, gid);
    }
    const dir = path.join(base, 'data');
    const replica = new PrivatePostgres(await freePort(), dir);
    await replica.run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', dir, '-X', 'stream', '-R', '-c', 'fast']);
    // -R wrote standby.signal and primary_conninfo; later lines win over the primary's port and socket directory.
    appendFileSync(path.join(dir, 'postgresql.auto.conf'), [`port = ${replica.port}`, `unix_socket_directories = '${base}'`, 'hot_standby_feedback = on', ''].join('\n'));
    await replica.start();
    return replica;
  }

  get adminUrl(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** The application database as the admin (migrations, assertions). */
  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/dc_faults`;
  }

  /** The application database as the apps' role (rows only, no DDL: docs/adr/0027). */
  get appUrl(): string {
    return `postgresql://${APP_ROLE}@127.0.0.1:${this.port}/dc_faults`;
  }

  /** The running server's process id (the parent of its backends), from its postmaster.pid. */
  get pid(): number {
    return Number(readFileSync(path.join(this.dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  }

  /** Creates the apps' role and the application database, and runs every migration (scripts/migrate.js, which grants the role). */
  async createDatabase(): Promise<{ url: string; appUrl: string }> {
    const client = new Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      await client.query(`CREATE ROLE ${APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION`);
      await client.query('CREATE DATABASE dc_faults');
    } finally {
      await client.end();
    }
    await promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'scripts/migrate.js')], { env: { ...process.env, DATABASE_URL: this.url } });
    return { url: this.url, appUrl: this.appUrl };
  }

  async start(): Promise<void> {
    await this.run('pg_ctl', ['-D', this.dir, '-l', path.join(path.dirname(this.dir), 'server.log'), '-w', '-t', '30', 'start']);
    await until(`postgres :${this.port}`, () => accepts(this.port));
  }

  async stop(): Promise<void> {
    await this.run('pg_ctl', ['-D', this.dir, '-m', 'fast', '-w', '-t', '30', 'stop']);
  }

  async destroy(): Promise<void> {
    try {
      await this.run('pg_ctl', ['-D', this.dir, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already stopped
    }
    rmSync(path.dirname(this.dir), { recursive: true, force: true });
  }

  /** Runs a Postgres tool without blocking the event loop (the load keeps running meanwhile). */
  private async run(tool: string, args: string[]): Promise<void> {
    const bin = path.join(PG_BIN, tool);
    const run = promisify(execFile);
    if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', bin, ...args], { cwd: '/' });
    else await run(bin, args);
  }
}

function userIds(user: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', user]).toString().trim());
  return { uid, gid };
}
