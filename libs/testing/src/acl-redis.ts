import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import IORedis, { type Redis } from 'ioredis';
import { REPO_ROOT } from './service-process';
import { freePort } from './ports';

/** The ACL renderer shared with compose and Kubernetes (docker/redis/acl.js, docs/adr/0027). */
interface AclModule {
  renderAcl(options: { prefix: string; server: 'main' | 'idempotency'; passwords: Record<string, string> }): string;
  SERVICES: string[];
}
const acl = require(path.join(REPO_ROOT, 'docker/redis/acl.js')) as AclModule;

/**
 * A redis-server of a test's own (never the shared 6379) with the platform's ACL for `prefix`:
 * default user off, one user per service with a random password, plus `admin` (all rights) for the
 * test's own inspection. Removed on `stop()`.
 */
export class AclRedis {
  private constructor(
    readonly url: string,
    /** Each service's password (`gateway`, `api-core`, `importer`, `webhook-dispatcher`). */
    readonly passwords: Record<string, string>,
    private readonly adminPassword: string,
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {}

  static async start(options: { prefix: string; server?: 'main' | 'idempotency'; args?: string[] }): Promise<AclRedis> {
    const dir = await mkdtemp(path.join(tmpdir(), 'dc-redis-'));
    const passwords = Object.fromEntries(acl.SERVICES.map((s) => [s, randomBytes(24).toString('base64url')]));
    const adminPassword = randomBytes(24).toString('base64url');
    const aclFile = path.join(dir, 'users.acl');
    const rendered = acl.renderAcl({ prefix: options.prefix, server: options.server ?? 'main', passwords });
    await writeFile(aclFile, `${rendered}user admin on >${adminPassword} ~* &* +@all\n`);
    const port = await freePort();
    const child = spawn('/usr/bin/redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--aclfile', aclFile, ...(options.args ?? [])], {
      stdio: 'ignore',
    });
    const redis = new AclRedis(`redis://127.0.0.1:${port}`, passwords, adminPassword, child, dir);
    // Up once the admin can PING (the port is ours alone).
    const deadline = Date.now() + 10_000;
    for (;;) {
      const admin = redis.client('admin', adminPassword, { retryStrategy: () => null });
      try {
        await admin.ping();
        admin.disconnect();
        return redis;
      } catch (err) {
        admin.disconnect();
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`redis-server did not start: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /** A connection as `username` (no user: unauthenticated). The caller disconnects it. */
  client(username?: string, password?: string, options: Record<string, unknown> = {}): Redis {
    const { port } = new URL(this.url);
    const client = new IORedis({ host: '127.0.0.1', port: Number(port), username, password: password ?? (username ? this.passwords[username] : undefined), maxRetriesPerRequest: 1, ...options });
    client.on('error', () => undefined); // failures reach the commands' promises
    return client;
  }

  /** A connection with every right, for the test's own reads. */
  admin(): Redis {
    return this.client('admin', this.adminPassword);
  }

  /** The environment that makes `service` log in as its own ACL user. */
  envFor(service: string): Record<string, string> {
    return { REDIS_URL: this.url, REDIS_USERNAME: service, REDIS_PASSWORD: this.passwords[service] };
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGKILL');
      await exited;
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}
