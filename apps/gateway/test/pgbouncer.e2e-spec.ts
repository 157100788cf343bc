import {
  accepts, createTenant, createTestDatabase, enqueueImport, eventually, freePort, GENERATED_HEADER, generateCsv, identityMapping, OperatorClient, Stack, uploadCsv,
  waitForImport, WebhookReceiver, withDatabase,
} from '@dc/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { liveDebtors, pay, payer, SCALE_ENV, startDispatcher, startImporter, storedPayments } from './scale-kit';

jest.setTimeout(120_000);

const PGBOUNCER = '/usr/sbin/pgbouncer';

/**
 * A private PgBouncer (docs/adr/0033) in front of one test database, under two names: `<db>` in
 * transaction pooling (api-core, the webhook dispatcher) and `<db>_session` in session pooling (the
 * importer: its session-level advisory lock and temporary table need the same server connection for
 * the whole run). Few server connections for many clients: the pooling is real.
 * `ignore_startup_parameters`: PgBouncer refuses the timeouts the pool sends at connect
 * ("unsupported startup parameter: statement_timeout"); behind it, they are set on the role for the
 * database instead (ALTER ROLE … IN DATABASE … SET), which every server connection starts with.
 */
class PrivatePgBouncer {
  private child: ChildProcess | undefined;
  output = '';

  private constructor(readonly port: number, private readonly dir: string) {}

  static async start(database: string, serverPoolSize: number): Promise<PrivatePgBouncer> {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'dc-pgbouncer-'));
    const bouncer = new PrivatePgBouncer(port, dir);
    // Postgres trusts 127.0.0.1 here; PgBouncer checks nothing either (auth_type trust, test only).
    writeFileSync(path.join(dir, 'userlist.txt'), '"dc_app" ""\n');
    writeFileSync(
      path.join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `${database} = host=127.0.0.1 port=5432 dbname=${database} pool_mode=transaction`,
        `${database}_session = host=127.0.0.1 port=5432 dbname=${database} pool_mode=session`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${path.join(dir, 'userlist.txt')}`,
        `default_pool_size = ${serverPoolSize}`,
        'max_client_conn = 200',
        'ignore_startup_parameters = statement_timeout,lock_timeout,idle_in_transaction_session_timeout',
        '',
      ].join('\n'),
    );
    for (const f of ['', 'pgbouncer.ini', 'userlist.txt']) chmodSync(path.join(dir, f), f ? 0o644 : 0o755);
    // PgBouncer refuses to run as root: as root, it takes the postgres user's identity (-u).
    const args = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
    bouncer.child = spawn(PGBOUNCER, [...args, path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (c: Buffer) => (bouncer.output = (bouncer.output + c.toString('utf8')).slice(-4_000));
    bouncer.child.stdout!.on('data', keep);
    bouncer.child.stderr!.on('data', keep);
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (bouncer.child.exitCode !== null || Date.now() > deadline) throw new Error(`pgbouncer did not start: ${bouncer.output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return bouncer;
  }

  url(appUrl: string, database: string): string {
    const url = new URL(appUrl);
    url.port = String(this.port);
    url.pathname = `/${database}`;
    return url.toString();
  }

  async stop(): Promise<void> {
    if (this.child && this.child.exitCode === null) {
      const exited = new Promise((r) => this.child!.once('exit', r));
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('the apps behind PgBouncer (transaction pooling for api-core and the dispatcher, session pooling for the importer)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let bouncer: PrivatePgBouncer;
  let stack: Stack;
  let operator: OperatorClient;
  const SERVER_POOL = 3;

  beforeAll(async () => {
    db = await createTestDatabase();
    const name = new URL(db.appUrl).pathname.slice(1);
    // The timeouts the pool can no longer send at connect (libs/config defaults of the stack).
    await withDatabase(db.url, (c) =>
      c.query(`ALTER ROLE dc_app IN DATABASE ${name} SET statement_timeout = 4000; ALTER ROLE dc_app IN DATABASE ${name} SET lock_timeout = 4000;
               ALTER ROLE dc_app IN DATABASE ${name} SET idle_in_transaction_session_timeout = 10000`),
    );
    bouncer = await PrivatePgBouncer.start(name, SERVER_POOL);
    stack = await Stack.start({
      database: { url: db.url, appUrl: bouncer.url(db.appUrl, name) },
      env: { ...SCALE_ENV, DATABASE_PREPARED_STATEMENTS: 'false', RATE_LIMIT_PER_MINUTE: '100000' },
      appEnv: { importer: { DATABASE_URL: bouncer.url(db.appUrl, `${name}_session`), DATABASE_PREPARED_STATEMENTS: 'true' } },
    });
    operator = new OperatorClient(stack.operatorUrl);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await bouncer?.stop();
    await db?.drop();
  });

  it('a server connection through the transaction pool carries the role’s timeouts', async () => {
    const name = new URL(db.appUrl).pathname.slice(1);
    const settings = await withDatabase(bouncer.url(db.appUrl, name), async (c) =>
      (await c.query(`SELECT current_user AS "user", current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock`)).rows[0]);
    expect(settings).toEqual({ user: 'dc_app', statement: '4s', lock: '4s' });
  });

  it('concurrent reads (more clients than server connections), a debtor batch and a payment', async () => {
    const p = await payer(stack, operator, 'Bouncer Org');
    const batch = await fetch(`${stack.publicUrl}/public/v1/portfolios/${p.portfolioId}/debtors`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.tenant.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ debtors: [{ externalId: 'pgb-1', identityFirstName: 'Ana', identityDocumentType: 'national_id', identityDocumentNumber: 'PGB-1' }] }),
    });
    expect(batch.status).toBe(200);
    expect(((await batch.json()) as { data: { summary: unknown } }).data.summary).toEqual({ created: 1, received: 1, rejected: 0, updated: 0 });

    const paid = await pay(stack.publicUrl, p);
    expect(paid.status).toBe(201);
    expect(await storedPayments(stack, p.portfolioId)).toEqual([paid.externalId]);

    // 60 reads at once over api-core's pool of 4, itself over 3 server connections.
    const reads = await Promise.all(
      Array.from({ length: 60 }, async () => {
        const res = await fetch(`${stack.publicUrl}/public/v1/debtors?portfolioId=${p.portfolioId}`, { headers: { authorization: `Bearer ${p.tenant.key}` } });
        return { status: res.status, count: ((await res.json()) as { data?: unknown[] }).data?.length };
      }),
    );
    expect(reads.filter((r) => r.status !== 200 || r.count !== 2)).toEqual([]);
  });

  it('a webhook delivery: the dispatcher relays and records it through the transaction pool', async () => {
    const receiver = await WebhookReceiver.start({ status: 200 });
    try {
      await startDispatcher(stack);
      const p = await payer(stack, operator, 'Bouncer Hook Org');
      await operator.expect(201, 'POST', `/organizations/${p.tenant.organizationId}/webhooks`, { url: receiver.url });
      const paid = await pay(stack.publicUrl, p);
      expect(paid.status).toBe(201);
      const [request] = await receiver.waitForCount(1, 30_000);
      expect(request.json<{ type: string; data: { id: string } }>()).toMatchObject({ type: 'payment.registered', data: { id: paid.body.data.id } });
      // The dispatcher records the outcome once it has read the answer: after the receiver saw the request.
      await eventually(async () => {
        const delivery = await withDatabase(db.url, async (c) =>
          (await c.query(`SELECT d.status, d.attempt_count FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id WHERE e.payload->>'id' = $1`, [paid.body.data.id])).rows);
        expect(delivery).toEqual([{ status: 'succeeded', attempt_count: 1 }]);
      }, 10_000);
    } finally {
      await receiver.close();
    }
  });

  it('an import: enqueued through the transaction pool, run by the importer through the session pool', async () => {
    await startImporter(stack);
    const tenant = await createTenant(operator, { name: 'Bouncer Import Org' });
    const pf = tenant.portfolioIds[0];
    const rows = 1200;
    const storageKey = await uploadCsv(stack.publicUrl, tenant.key, pf, generateCsv(rows, { prefix: 'pgb' }));
    const queued = await enqueueImport(stack.publicUrl, tenant.key, pf, { storageKey, columnMapping: identityMapping(GENERATED_HEADER) });
    expect(queued.status).toBe(202);
    const done = await waitForImport(stack.publicUrl, tenant.key, queued.body.data!.id, undefined, 60_000, { intervalMs: 100 });
    expect(done).toMatchObject({ status: 'completed', created: rows, errors: 0, processedRows: rows, totalRows: rows });
    expect(await liveDebtors(stack, pf)).toEqual({ n: rows, documents: rows, external_ids: rows });
  });
});
