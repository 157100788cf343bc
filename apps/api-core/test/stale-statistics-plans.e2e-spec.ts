import { AuthContext, MAX_ROWS_EXAMINED_PER_PAGE } from '@dc/contracts';
import { Prisma } from '@dc/database';
import { createTenant, OperatorClient, Stack, Tenant } from '@dc/testing';
import { Client } from 'pg';
import { encodeTime, ulid } from 'ulid';
import { reachableDebtorsSql } from '../src/debtors/debtors.repository';
import { reachableDebtsSql } from '../src/debts/debts.repository';
import { callByIdSql, callsPageSql } from '../src/calls/calls.repository';
import { paymentByIdSql, paymentsPageSql } from '../src/payments/payments.repository';
import { promisesPageSql } from '../src/promises/promises.repository';
import { campaignByIdSql, campaignsPageSql } from '../src/campaigns/campaigns.repository';
import { eventByIdSql, eventsPageSql } from '../src/events/events.repository';
import { planCost } from './plan-buffers';

/**
 * docs/adr/0023: every list and by-id read keeps its plan whatever the planner's
 * statistics say. A realistic portfolio is loaded through the public batch route and the operator
 * routes, and nothing refreshes statistics (autovacuum is switched off for these tables, as it
 * lags every bulk load in production); then each read the repositories send — the exact SQL of
 * the exported *Sql builders — is run with EXPLAIN (ANALYZE, BUFFERS) as a custom and as a generic
 * plan, for the first page and a deep cursor page, and the shared buffers it touched must stay
 * under a bound set by the page size, never by the portfolio size:
 * - EMPTY: never analysed (a fresh test database has no statistics);
 * - STALE: analysed, then a second portfolio loaded and read (its id is in no histogram);
 * - FRESH: analysed after both loads.
 *
 * Bounded list scans (docs/adr/0042) add the rows each page examines: a page whose filters are all
 * served by its index examines at most the page size per scan; one with a filter that is not (a
 * second filter, `from`/`to`) at most MAX_ROWS_EXAMINED_PER_PAGE — filters that match nothing,
 * match a sliver or match everything, over one portfolio or every reachable one. Before it, a
 * `from` past every row read the whole portfolio: 40,120 calls, 20,004 payments per page.
 *
 * Outbox events, calls and promises are partitioned by month on their ids (docs/adr/0051): their
 * reads must also read one partition by id (pruned at execution in a generic plan) and merge the
 * partitions' index scans in page order, never reading a partition whole or sorting it; a page may
 * examine one row more per partition that has rows (the merge reads each one row ahead). The test's
 * calls and promises span 60 days: the first partition (every id before the current month) and the
 * current month's. Calls and promises are read in id order, so a last page (its cursor in the current
 * month) must skip the first partition (docs/adr/0051). *
 * Each list is also read from the table's last id (a last page, empty for the portfolio): its scans
 * must end where the portfolio's rows of their value end. Keyed scans ending on a row comparison
 * led by the key walked the later portfolio's rows of that value there (FRESH A: 211 buffers for
 * active debtors, 320 for completed or no-answer calls; now 4 to 8; docs/adr/0042, amended).
 *
 * Portfolio B has 10,000 debtors, not 20,000: the stale-statistics trap needs only a portfolio many
 * pages long that the statistics have never seen (a plan that reads it whole reads 10,000 debtors
 * instead of 51), and it halves the second load. The whole file runs in ~45 s here (loading ~30 s).
 *
 * Measured with this file (worst page of each read over the 3 states × 2 plans × 2 pages, shared
 * buffers hit + read), at the previous commit's indexes and SQL → with migration
 * 20261125000000_read_indexes and the SQL of reachableKeysetPageSql:
 *   debtors 14,536 → 527; every reachable portfolio 14,539 → 624; status=active 14,536 → 541;
 *   status=deceased 20,108 (FRESH, generic) → 165; status=settled,unreachable 14,541 → 417;
 *   debtor by id 6,691 → 17; debts 139,567 → 417; debts status=paid 15,251 → 280;
 *   status=cancelled 2,255 → 247; debts debtorId 1,602 → 13; debt by id 202 → 14;
 *   calls 332 → 8; calls debtorId 546 → 56; campaignId 1,643 → 14; status=in_progress 1,635 → 57;
 *   status=completed,no_answer 1,635 → 21; direction=inbound 1,635 → 49; from/to 1,635 → 8;
 *   payments 192 → 7; payments debtorId 62 → 8; payments from/to 192 → 7; promises 131 → 6;
 *   promises debtorId 52 → 9; promises status=cancelled 131 → 38; campaigns 4 → 4.
 * Before, with fresh statistics, the debtors' first page still read 5,392 (the full index walked
 * the 5,000 retired debtors of portfolio A). With the new SQL on the old indexes most keyed pages
 * still failed (debtors status=settled,unreachable 1,461, debts status=paid 1,030, calls
 * campaignId 1,643). The table is in docs/adr/0023; SHOW_BUFFERS=1 prints this run's.
 */
const PORTFOLIO_A = 20_000; // debtors, each with 2 debts and 2 phones
const PORTFOLIO_B = 10_000;
const BATCH = 500;
const TAKE = 51; // limit 50 + 1, as the services ask
/** Shared buffers of a last page: per scan, its index descent and the first entry past its range. */
const LAST_PAGE = 40;

type Table = 'debtors' | 'debts' | 'calls' | 'payments' | 'promises' | 'campaigns' | 'outbox_events';
/** Partitioned by month on their ids (docs/adr/0051). */
const PARTITIONED: readonly Table[] = ['outbox_events', 'calls', 'promises'];
/** Partitioned tables read in id order: a page after a cursor skips the months before it. */
const PRUNED_BY_CURSOR: readonly Table[] = ['calls', 'promises'];

/** What the cases of one portfolio read: ids picked after its load. */
interface Sample {
  pf: string;
  /** Per table, the id 80 % of the way through the portfolio's rows: the cursor of a deep page. */
  deep: Record<Table, string>;
  /** The feed position of the deep event: events are read in (feed_position, id) order (docs/adr/0048). */
  deepEventPosition: string;
  event: string;
  /** A debtor with 120 calls, 4 payments and 4 promises (a debtor the collectors keep calling). */
  busyDebtor: string;
  /** The middle of the busy debtor's calls. */
  busyDebtorCallCursor: string;
  debtor: string;
  debt: string;
  call: string;
  payment: string;
  campaign: string;
  /** The campaign with the most calls. */
  bigCampaign: string;
}

interface Case {
  name: string;
  sql: (after: string | null) => Prisma.Sql;
  /** The cursor of the deep page; null for by-id reads. */
  deep: string | null;
  /** Shared buffers per page. */
  bound: number;
  /** The table whose examined rows are counted, and their bound per page. */
  table: Table;
  examined: number;
}

interface Measure {
  state: string;
  name: string;
  page: Page;
  plan: 'custom' | 'generic';
  buffers: number;
  bound: number;
  examined: number;
  examinedBound: number;
  partitionsScanned: number;
  partitions: string[];
  readAhead: number;
  unordered: boolean;
}

const DAY = 86_400_000;

/**
 * A page's cursor: none, 80 % through the portfolio's rows, or the table's last id (of every
 * portfolio). The last page finds no row of its own portfolio, and must not pay for another's: a
 * scan that ended only where its first index column changes walked every later portfolio's rows of
 * the same filter value there (Postgres 15 ends a row comparison on its first column only).
 */
type Page = 'first' | 'deep' | 'last';

describe('query plans independent of statistics (docs/adr/0023)', () => {
  let stack: Stack;
  let operator: OperatorClient;
  let tenant: Tenant;
  let client: Client;
  let auth: AuthContext;
  const measures: Measure[] = [];
  const started = Date.now();

  beforeAll(async () => {
    stack = await Stack.start({
      env: { RATE_LIMIT_PER_MINUTE: '1000000', NATS_REQUEST_TIMEOUT_MS: '30000', DATABASE_STATEMENT_TIMEOUT_MS: '20000', DATABASE_LOCK_TIMEOUT_MS: '20000' },
    });
    operator = new OperatorClient(stack.operatorUrl);
    tenant = await createTenant(operator, { portfolios: 2 });
    auth = { organizationId: tenant.organizationId, apiKeyId: 'key_plans', portfolioIds: [] };
    client = new Client({ connectionString: stack.databaseUrl });
    await client.connect();
    // Statistics change only when this test says so, even where autovacuum runs (CI).
    // A partitioned table's partitions hold its rows and statistics (docs/adr/0051): each is set.
    for (const table of ['portfolios', 'debtors', 'debts', 'debtor_phones', 'debtor_emails', 'calls', 'payments', 'promises', 'campaigns', 'outbox_events']) {
      const leaves = await client.query<{ name: string }>('SELECT relid::text AS name FROM pg_partition_tree($1::regclass) WHERE isleaf', [table]);
      for (const { name } of leaves.rows) await client.query(`ALTER TABLE ${name} SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)`);
    }
  }, 60_000);

  afterAll(async () => {
    if (process.env.SHOW_BUFFERS) printTable();
    await client?.end();
    await stack?.stop();
  });

  function log(message: string): void {
    if (process.env.SHOW_BUFFERS) console.log(`${((Date.now() - started) / 1000).toFixed(1)} s: ${message}`);
  }

  function printTable(): void {
    const rows = new Map<string, Record<string, string>>();
    for (const m of measures) {
      const key = `${m.name} | ${m.page}`;
      const row = rows.get(key) ?? {};
      row[`${m.state} ${m.plan}`] = `${m.buffers} / ${m.examined}`;
      rows.set(key, row);
    }
    const columns = [...new Set(measures.map((m) => `${m.state} ${m.plan}`))];
    // Each cell: buffers / rows examined.
    const lines = [`| read | page | ${columns.join(' | ')} |`, `|---|---|${columns.map(() => '---:').join('|')}|`];
    for (const [key, row] of rows) lines.push(`| ${key} | ${columns.map((c) => row[c] ?? '').join(' | ')} |`);
    console.log(lines.join('\n'));
  }

  // ---------------------------------------------------------------- loading

  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  const FIRST = ['Ana', 'Luis', 'Marta', 'Jorge', 'Lucía', 'Pablo', 'Elena', 'Diego'];
  const LAST = ['García', 'Fernández', 'López', 'Martínez', 'Sánchez', 'Pérez', 'Gómez', 'Ruiz'];
  const CITIES = ['Madrid', 'Barcelona', 'Valencia', 'Sevilla', 'Bilbao', 'Málaga'];

  function debtorBody(prefix: string, i: number, offset: number) {
    const n = offset + i;
    const debt = (k: number) => {
      const total = 100 + ((n * 7 + k * 13) % 900);
      // A tenth of the debts arrive paid (status paid); a third partly paid.
      const paid = n % 10 === k ? total : n % 3 === 0 ? 25.5 : 0;
      return { externalId: `${prefix}-${n}-${k}`, totalAmount: total, paidAmount: paid, currency: 'EUR', dueDate: '2026-12-31', issueDate: '2026-01-15', description: 'consumer loan', debtType: 'loan' };
    };
    return {
      externalId: `${prefix}-${n}`,
      identityFirstName: FIRST[n % FIRST.length],
      identityLastName: LAST[(n >> 3) % LAST.length],
      identityDocumentType: 'national_id',
      identityDocumentNumber: `${pad(n, 8)}${prefix}`,
      contactInfoAddressStreet: `Calle Mayor ${(n % 200) + 1}`,
      contactInfoAddressCity: CITIES[n % CITIES.length],
      contactInfoAddressPostalCode: pad(28000 + (n % 100), 5),
      contactInfoAddressCountry: 'ES',
      contactInfoPhoneNumbers: [0, 1].map((p) => ({ phone: `+34 6${pad(n, 6)}${p}1`, primary: p === 0, type: 'mobile' })),
      ...(n % 2 ? { contactInfoEmails: [{ address: `debtor${n}@example.com`, primary: true }] } : {}),
      debts: [0, 1].map(debt),
    };
  }

  /** Debtors, debts, phones and emails through POST /public/v1/portfolios/{id}/debtors, 500 a request. */
  async function loadDebtors(pf: string, prefix: string, count: number, offset: number): Promise<void> {
    const post = async (start: number) => {
      const body = { debtors: Array.from({ length: Math.min(BATCH, count - start) }, (_, i) => debtorBody(prefix, start + i, offset)) };
      const res = await fetch(`${stack.publicUrl}/public/v1/portfolios/${pf}/debtors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data?: { summary: { created: number } } };
      if (res.status !== 200 || json.data?.summary.created !== body.debtors.length) throw new Error(`batch at ${start}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    };
    // Two requests in flight: one is parsed and validated while the other writes (they take the
    // portfolio's lock one after the other).
    const starts = Array.from({ length: Math.ceil(count / BATCH) }, (_, i) => i * BATCH);
    await Promise.all([0, 1].map(async (lane) => {
      for (let i = lane; i < starts.length; i += 2) await post(starts[i]);
    }));
  }

  /**
   * Everything else a portfolio in use holds. Campaigns, deletions and erasures go through the
   * operator routes; calls, payments and promises (tens of thousands, one row per request on
   * their routes: minutes) are inserted with SQL in their routes' shape, with ids minted at their
   * creation time over the last 60 days, so id order is creation order and two portfolios' rows
   * interleave as they do in production. The batch never sets a debtor status and no route moves
   * it yet: a realistic spread is set with SQL, as are a few cancelled debts. `retired` of the
   * oldest debtors are then soft-deleted with their debts, as a re-load (import mode replace)
   * leaves them, with the importer's own statements: dead rows with the oldest ids, which a page
   * must not walk.
   */
  async function loadActivity(pf: string, retired: number): Promise<Sample> {
    const campaigns: string[] = [];
    const moves: Record<number, string[]> = { 0: ['scheduled', 'active'], 1: ['scheduled', 'active'], 2: ['scheduled', 'active', 'paused'], 3: ['scheduled', 'active', 'completed'], 4: ['scheduled', 'active', 'completed', 'archived'], 5: ['scheduled'] };
    for (let c = 0; c < 12; c++) {
      const created = await operator.expect(201, 'POST', `/portfolios/${pf}/campaigns`, { name: `Campaign ${c}`, channel: 'voice' });
      for (const to of moves[c % 6]) await operator.expect(200, 'POST', `/campaigns/${created.data.id}/transition`, { to });
      campaigns.push(created.data.id);
    }
    const debtorIds = (await client.query<{ id: string }>('SELECT id FROM debtors WHERE portfolio_id = $1 ORDER BY id', [pf])).rows.map((r) => r.id);
    for (const [k, id] of debtorIds.entries()) {
      if (k % 700 === 350) await operator.expect(204, 'DELETE', `/debtors/${id}`);
      else if (k % 2000 === 1000) await operator.expect(200, 'POST', `/debtors/${id}/erase`);
    }
    await client.query(
      `UPDATE debtors SET status = CASE WHEN h < 2 THEN 'deceased' WHEN h < 22 THEN 'unreachable' WHEN h < 52 THEN 'settled' WHEN h < 152 THEN 'in_collection' ELSE 'active' END
       FROM (SELECT id AS hid, hashtext(id) & 1023 AS h FROM debtors WHERE portfolio_id = $1) x WHERE id = x.hid`,
      [pf],
    );
    await client.query(`UPDATE debts SET status = 'cancelled' WHERE portfolio_id = $1 AND hashtext(id) & 1023 < 5`, [pf]);
    if (retired) {
      const oldest = debtorIds.slice(0, Math.floor(debtorIds.length * retired));
      await client.query('UPDATE debts SET deleted_at = now(), updated_at = now() WHERE debtor_id = ANY($1::text[]) AND deleted_at IS NULL', [oldest]);
      await client.query('UPDATE debtors SET deleted_at = now(), updated_at = now() WHERE id = ANY($1::text[]) AND deleted_at IS NULL', [oldest]);
    }

    const now = Date.now();
    const at = (k: number, total: number) => now - 60 * DAY + Math.floor(((k + 0.5) / total) * 60 * DAY);
    // Live debtors (past the retired ones, none of the deleted or erased ones).
    const busy = debtorIds[Math.floor(debtorIds.length * 0.5) + 7];
    const debtor = debtorIds[Math.floor(debtorIds.length * 0.6) + 21];
    // Calls: two per debtor, plus 120 of the busy debtor.
    const callDebtors = [...debtorIds.flatMap((id) => [id, id]), ...Array.from({ length: 120 }, () => busy)];
    const callOrder = callDebtors.map((d, k) => ({ d, k: (k * 7919) % callDebtors.length })).sort((x, y) => x.k - y.k);
    const calls = callOrder.map(({ d }, k) => {
      const h = (k * 2654435761) % 1000;
      const t = at(k, callOrder.length);
      const inbound = h % 20 === 7; // 5 %
      const status = h < 450 ? 'completed' : h < 750 ? 'no_answer' : h < 850 ? 'busy' : h < 930 ? 'failed' : h < 980 ? 'cancelled' : h < 990 ? 'queued' : h < 996 ? 'ringing' : 'in_progress';
      const campaign = inbound || h % 5 === 0 ? null : campaigns[Math.floor(((h * 31) % 1000) ** 2 / 1_000_000 * campaigns.length)];
      return { id: `call_${ulid(t)}`, d, campaign, direction: inbound ? 'inbound' : 'outbound', status, t: new Date(t) };
    });
    await client.query(
      `INSERT INTO calls (id, portfolio_id, debtor_id, campaign_id, direction, status, from_number, to_number, connected_at,
         effective_duration_sec, metrics_start_time, metrics_end_time, created_at, updated_at)
       SELECT u.id, $1, u.d, u.c, u.dir, u.st, '+34910000000', '+34600000000',
         CASE WHEN u.st = 'completed' THEN u.t END, CASE WHEN u.st = 'completed' THEN 93.5 END, u.t, u.t, u.t, u.t
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[]) AS u(id, d, c, dir, st, t)`,
      [pf, calls.map((c) => c.id), calls.map((c) => c.d), calls.map((c) => c.campaign), calls.map((c) => c.direction), calls.map((c) => c.status), calls.map((c) => c.t)],
    );
    // Payments: one per debtor, plus 4 of the busy debtor; business dates spread over 60 days.
    const payDebtors = [...debtorIds, busy, busy, busy, busy];
    const payments = payDebtors.map((d, k) => {
      const t = at((k * 104729) % payDebtors.length, payDebtors.length);
      return { id: `pay_${ulid(t)}`, d, t: new Date(t), date: new Date(t - ((k * 13) % 5) * DAY).toISOString().slice(0, 10) };
    }).sort((x, y) => (x.id < y.id ? -1 : 1));
    await client.query(
      `INSERT INTO payments (id, external_id, portfolio_id, debtor_id, amount, currency, payment_date, payment_method, source, created_at, updated_at)
       SELECT u.id, 'EXT-' || u.id, $1, u.d, 50, 'EUR', u.dt, 'transfer', 'api', u.t, u.t
       FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS u(id, d, dt, t)`,
      [pf, payments.map((p) => p.id), payments.map((p) => p.d), payments.map((p) => p.date), payments.map((p) => p.t)],
    );
    // Promises: one per five debtors, plus 4 of the busy debtor.
    const promiseDebtors = [...debtorIds.filter((_, k) => k % 5 === 2), busy, busy, busy, busy];
    const promises = promiseDebtors.map((d, k) => {
      const t = at((k * 7907) % promiseDebtors.length, promiseDebtors.length);
      const h = (k * 2654435761) % 100;
      const status = h < 60 ? 'pending' : h < 75 ? 'fulfilled' : h < 80 ? 'partial' : h < 95 ? 'broken' : 'cancelled';
      return { id: `prm_${ulid(t)}`, d, status, t: new Date(t) };
    }).sort((x, y) => (x.id < y.id ? -1 : 1));
    await client.query(
      `INSERT INTO promises (id, portfolio_id, debtor_id, amount, currency, promise_date, status, created_at, updated_at)
       SELECT u.id, $1, u.d, 75, 'EUR', '2026-12-15', u.st, u.t, u.t
       FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS u(id, d, st, t)`,
      [pf, promises.map((p) => p.id), promises.map((p) => p.d), promises.map((p) => p.status), promises.map((p) => p.t)],
    );

    // Events: one per payment, promise and completed call, with their ids' times, relayed (feed
    // positions in id order, as the relay gives them), in ten statements over the 60 days.
    for (let k = 0; k < 10; k++) {
      const bound = (i: number) => (i === 0 ? 'evt_' : i === 10 ? 'evt_~' : `evt_${encodeTime(now - 60 * DAY + i * 6 * DAY, 10)}`);
      await client.query(
        `INSERT INTO outbox_events (id, organization_id, portfolio_id, type, livemode, payload, created_at, relayed_at, feed_position)
         SELECT src.id, $2, $1, src.type, true, json_build_object('id', src.rid, 'portfolioId', $1::text, 'debtorId', src.debtor_id,
           'createdAt', src.created_at, 'note', repeat('x', 200)), src.created_at, src.created_at, nextval('outbox_events_feed_position_seq')
         FROM (SELECT 'evt_' || split_part(id, '_', 2) AS id, id AS rid, 'payment.registered' AS type, debtor_id, created_at FROM payments WHERE portfolio_id = $1
               UNION ALL SELECT 'evt_' || split_part(id, '_', 2), id, 'promise.created', debtor_id, created_at FROM promises WHERE portfolio_id = $1
               UNION ALL SELECT 'evt_' || split_part(id, '_', 2), id, 'call.completed', debtor_id, created_at FROM calls WHERE portfolio_id = $1 AND status = 'completed') src
         WHERE src.id >= $3 AND src.id < $4
         ORDER BY src.id`,
        [pf, tenant.organizationId, bound(k), bound(k + 1)],
      );
    }
    const deepEvent = (await client.query<{ id: string; position: string }>(
      `SELECT id, feed_position::text AS position FROM outbox_events WHERE portfolio_id = $1 ORDER BY feed_position, id OFFSET (SELECT count(*) * 4 / 5 FROM outbox_events WHERE portfolio_id = $1) LIMIT 1`,
      [pf],
    )).rows[0];

    const deepOf = async (table: Table) =>
      (await client.query<{ id: string }>(
        `SELECT id FROM ${table} WHERE portfolio_id = $1 ORDER BY id OFFSET (SELECT count(*) * 4 / 5 FROM ${table} WHERE portfolio_id = $1) LIMIT 1`,
        [pf],
      )).rows[0].id;
    const deep = {} as Record<Table, string>;
    for (const table of ['debtors', 'debts', 'calls', 'payments', 'promises', 'campaigns'] as const) deep[table] = await deepOf(table);
    deep.outbox_events = deepEvent.id;
    const one = async (text: string, params: unknown[]) => (await client.query<{ id: string }>(text, params)).rows[0].id;
    const busyCalls = (await client.query<{ id: string }>('SELECT id FROM calls WHERE debtor_id = $1 ORDER BY id', [busy])).rows;
    return {
      pf,
      deep,
      deepEventPosition: deepEvent.position,
      event: deepEvent.id,
      busyDebtor: busy,
      busyDebtorCallCursor: busyCalls[Math.floor(busyCalls.length / 2)].id,
      debtor,
      debt: await one(`SELECT t.id FROM debts t WHERE t.debtor_id = $1 ORDER BY t.id LIMIT 1`, [debtor]),
      call: calls[Math.floor(calls.length / 3)].id,
      payment: payments[Math.floor(payments.length / 3)].id,
      campaign: campaigns[7],
      bigCampaign: await one(`SELECT campaign_id AS id FROM calls WHERE portfolio_id = $1 AND campaign_id IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`, [pf]),
    };
  }

  // ---------------------------------------------------------------- measuring

  /**
   * Every read the repositories send for one portfolio, every filter and every kind of combination,
   * with the bounds of a page: its buffers, and the rows it examines.
   */
  function casesFor(s: Sample): Case[] {
    const pf = s.pf;
    // Per scan of a page (51 rows): a debtor costs ~8 buffers with its phones and emails, a debt ~6
    // with its debtor's probe, a call, payment or promise ~1-2 (rows written together share heap
    // pages); plus the index pages and, until VACUUM, the dead entries of the retired rows. A plan
    // that reads the portfolio (or a status of it) and sorts it costs thousands.
    const DEBTOR_PAGE = 700;
    const TWO_DEBTOR_SCANS = 1000; // two portfolios, or two statuses: up to 102 rows read, 51 kept
    const DEBT_PAGE = 600;
    const PAGE = 150;
    // A row by id, or a debtor's few rows.
    const BY_ID = 40;
    // Rows examined: an index-served page at most the page (51 rows) per scan; a capped one the cap.
    const SERVED = TAKE;
    const CAPPED = MAX_ROWS_EXAMINED_PER_PAGE;
    // A capped page that examines the cap: ~40 heap pages where ~60 calls or payments of the
    // portfolio share one, one per row where they do not (a campaign's calls here: ~340), plus
    // the index pages (docs/adr/0042).
    const CAPPED_PAGE = CAPPED + 100;
    const windowFrom = new Date(Date.now() - 61 * DAY);
    const windowTo = new Date(Date.now() + DAY);
    // One day in the middle of the 60: a sliver (1/60) of the calls and payments, none past the deep cursor.
    const dayFrom = new Date(Date.now() - 30 * DAY);
    const dayTo = new Date(dayFrom.getTime() + DAY - 1);
    const day = dayFrom.toISOString().slice(0, 10);
    const never = { from: new Date('9999-01-01T00:00:00Z') };
    const of = (table: Table) => (name: string, sql: Case['sql'], deep: string | null, bound: number, examined = SERVED): Case => ({ name, sql, deep, bound, table, examined });
    const [debtors, debts, calls, payments, promises, events] = (['debtors', 'debts', 'calls', 'payments', 'promises', 'outbox_events'] as const).map(of);
    // An events page starts after a position: the cursor's event and its feed position.
    const position = (after: string | null) => (after === null ? null : { id: after, position: s.deepEventPosition });
    // The test's 24 campaigns fit a heap page: analysed, the planner reads the table (Seq Scan), once per scan.
    const campaigns = (name: string, sql: Case['sql'], deep: string | null, bound: number, scans = 1) => of('campaigns')(name, sql, deep, bound, scans * SERVED);
    return [
      debtors('debtors', (a) => reachableDebtorsSql(auth, { portfolioId: pf }, a, TAKE), s.deep.debtors, DEBTOR_PAGE),
      debtors('debtors, every reachable portfolio', (a) => reachableDebtorsSql(auth, {}, a, TAKE), s.deep.debtors, TWO_DEBTOR_SCANS, 2 * SERVED),
      debtors('debtors status=active', (a) => reachableDebtorsSql(auth, { portfolioId: pf, status: ['active'] }, a, TAKE), s.deep.debtors, DEBTOR_PAGE),
      debtors('debtors status=deceased (0.2 %)', (a) => reachableDebtorsSql(auth, { portfolioId: pf, status: ['deceased'] }, a, TAKE), s.deep.debtors, DEBTOR_PAGE),
      debtors('debtors status=settled,unreachable', (a) => reachableDebtorsSql(auth, { portfolioId: pf, status: ['settled', 'unreachable'] }, a, TAKE), s.deep.debtors, TWO_DEBTOR_SCANS, 2 * SERVED),
      debtors('debtor by id', () => reachableDebtorsSql(auth, { id: s.debtor }, null, 1), null, BY_ID, 1),
      debts('debts', (a) => reachableDebtsSql(auth, { portfolioId: pf }, a, TAKE), s.deep.debts, DEBT_PAGE),
      debts('debts, every reachable portfolio', (a) => reachableDebtsSql(auth, {}, a, TAKE), s.deep.debts, 2 * DEBT_PAGE, 2 * SERVED),
      debts('debts status=paid', (a) => reachableDebtsSql(auth, { portfolioId: pf, status: 'paid' }, a, TAKE), s.deep.debts, DEBT_PAGE),
      debts('debts status=cancelled (0.5 %)', (a) => reachableDebtsSql(auth, { portfolioId: pf, status: 'cancelled' }, a, TAKE), s.deep.debts, DEBT_PAGE),
      debts('debts debtorId', (a) => reachableDebtsSql(auth, { portfolioId: pf, debtorId: s.debtor }, a, TAKE), s.deep.debts, BY_ID),
      debts('debts debtorId status=paid', (a) => reachableDebtsSql(auth, { portfolioId: pf, debtorId: s.debtor, status: 'paid' }, a, TAKE), s.deep.debts, BY_ID, CAPPED),
      debts('debts debtorId status=cancelled (none)', (a) => reachableDebtsSql(auth, { portfolioId: pf, debtorId: s.debtor, status: 'cancelled' }, a, TAKE), s.deep.debts, BY_ID, CAPPED),
      debts('debt by id', () => reachableDebtsSql(auth, { id: s.debt }, null, 1), null, BY_ID, 1),
      calls('calls', (a) => callsPageSql(auth, { portfolioId: pf }, a, TAKE), s.deep.calls, PAGE),
      calls('calls, every reachable portfolio', (a) => callsPageSql(auth, {}, a, TAKE), s.deep.calls, 2 * PAGE, 2 * SERVED),
      calls('calls debtorId (120 calls)', (a) => callsPageSql(auth, { portfolioId: pf, debtorId: s.busyDebtor }, a, TAKE), s.busyDebtorCallCursor, PAGE),
      calls('calls campaignId (biggest)', (a) => callsPageSql(auth, { portfolioId: pf, campaignId: s.bigCampaign }, a, TAKE), s.deep.calls, PAGE),
      calls('calls campaignId', (a) => callsPageSql(auth, { portfolioId: pf, campaignId: s.campaign }, a, TAKE), s.deep.calls, PAGE),
      calls('calls status=completed,no_answer', (a) => callsPageSql(auth, { portfolioId: pf, statuses: ['completed', 'no_answer'] }, a, TAKE), s.deep.calls, 2 * PAGE, 2 * SERVED),
      calls('calls status=in_progress (0.4 %)', (a) => callsPageSql(auth, { portfolioId: pf, statuses: ['in_progress'] }, a, TAKE), s.deep.calls, PAGE),
      calls('calls direction=inbound (5 %)', (a) => callsPageSql(auth, { portfolioId: pf, direction: 'inbound' }, a, TAKE), s.deep.calls, PAGE),
      calls('calls campaignId status=completed', (a) => callsPageSql(auth, { portfolioId: pf, campaignId: s.campaign, statuses: ['completed'] }, a, TAKE), s.deep.calls, PAGE, CAPPED),
      calls('calls campaignId direction=inbound (none)', (a) => callsPageSql(auth, { portfolioId: pf, campaignId: s.bigCampaign, direction: 'inbound' }, a, TAKE), s.deep.calls, CAPPED_PAGE, CAPPED),
      calls('calls debtorId status=completed', (a) => callsPageSql(auth, { portfolioId: pf, debtorId: s.busyDebtor, statuses: ['completed'] }, a, TAKE), s.busyDebtorCallCursor, PAGE, CAPPED),
      calls('calls status=completed direction=inbound', (a) => callsPageSql(auth, { portfolioId: pf, statuses: ['completed'], direction: 'inbound' }, a, TAKE), s.deep.calls, PAGE, CAPPED),
      calls('calls status=in_progress direction=inbound (0.02 %)', (a) => callsPageSql(auth, { portfolioId: pf, statuses: ['in_progress'], direction: 'inbound' }, a, TAKE), s.deep.calls, CAPPED_PAGE, CAPPED),
      calls('calls status=completed,no_answer direction=inbound', (a) => callsPageSql(auth, { portfolioId: pf, statuses: ['completed', 'no_answer'], direction: 'inbound' }, a, TAKE), s.deep.calls, CAPPED_PAGE, CAPPED),
      calls('calls from/to (window holding every call)', (a) => callsPageSql(auth, { portfolioId: pf, from: windowFrom, to: windowTo }, a, TAKE), s.deep.calls, PAGE, CAPPED),
      calls('calls from/to (one day of 60)', (a) => callsPageSql(auth, { portfolioId: pf, from: dayFrom, to: dayTo }, a, TAKE), s.deep.calls, CAPPED_PAGE, CAPPED),
      calls('calls from=9999-01-01 (none)', (a) => callsPageSql(auth, { portfolioId: pf, ...never }, a, TAKE), s.deep.calls, CAPPED_PAGE, CAPPED),
      calls('calls to=2000-01-01 (none)', (a) => callsPageSql(auth, { portfolioId: pf, to: new Date('2000-01-01T23:59:59.999Z') }, a, TAKE), s.deep.calls, CAPPED_PAGE, CAPPED),
      calls('calls from=9999-01-01, every reachable portfolio', (a) => callsPageSql(auth, never, a, TAKE), s.deep.calls, CAPPED_PAGE, CAPPED),
      calls('calls debtorId from=9999-01-01', (a) => callsPageSql(auth, { portfolioId: pf, debtorId: s.busyDebtor, ...never }, a, TAKE), s.busyDebtorCallCursor, PAGE, CAPPED),
      calls('calls status=completed from=9999-01-01', (a) => callsPageSql(auth, { portfolioId: pf, statuses: ['completed'], ...never }, a, TAKE), s.deep.calls, CAPPED_PAGE, CAPPED),
      calls('call by id', () => callByIdSql(auth, s.call), null, BY_ID, 1),
      payments('payments', (a) => paymentsPageSql(auth, { portfolioId: pf }, a, TAKE), s.deep.payments, PAGE),
      payments('payments, every reachable portfolio', (a) => paymentsPageSql(auth, {}, a, TAKE), s.deep.payments, 2 * PAGE, 2 * SERVED),
      payments('payments debtorId', (a) => paymentsPageSql(auth, { portfolioId: pf, debtorId: s.busyDebtor }, a, TAKE), s.deep.payments, BY_ID),
      payments('payments from/to (window holding every payment)', (a) => paymentsPageSql(auth, { portfolioId: pf, from: '2026-01-01', to: '2027-01-01' }, a, TAKE), s.deep.payments, PAGE, CAPPED),
      payments('payments from=to (one day of 60)', (a) => paymentsPageSql(auth, { portfolioId: pf, from: day, to: day }, a, TAKE), s.deep.payments, CAPPED_PAGE, CAPPED),
      payments('payments from=9999-01-01 (none)', (a) => paymentsPageSql(auth, { portfolioId: pf, from: '9999-01-01' }, a, TAKE), s.deep.payments, CAPPED_PAGE, CAPPED),
      payments('payments to=2000-01-01 (none)', (a) => paymentsPageSql(auth, { portfolioId: pf, to: '2000-01-01' }, a, TAKE), s.deep.payments, CAPPED_PAGE, CAPPED),
      payments('payments from=9999-01-01, every reachable portfolio', (a) => paymentsPageSql(auth, { from: '9999-01-01' }, a, TAKE), s.deep.payments, CAPPED_PAGE, CAPPED),
      payments('payments debtorId from=9999-01-01', (a) => paymentsPageSql(auth, { portfolioId: pf, debtorId: s.busyDebtor, from: '9999-01-01' }, a, TAKE), s.deep.payments, BY_ID, CAPPED),
      payments('payment by id', () => paymentByIdSql(auth, s.payment), null, BY_ID, 1),
      promises('promises', (a) => promisesPageSql(auth, { portfolioId: pf }, a, TAKE), s.deep.promises, PAGE),
      promises('promises, every reachable portfolio', (a) => promisesPageSql(auth, {}, a, TAKE), s.deep.promises, 2 * PAGE, 2 * SERVED),
      promises('promises debtorId', (a) => promisesPageSql(auth, { portfolioId: pf, debtorId: s.busyDebtor }, a, TAKE), s.deep.promises, BY_ID),
      promises('promises status=cancelled (5 %)', (a) => promisesPageSql(auth, { portfolioId: pf, statuses: ['cancelled'] }, a, TAKE), s.deep.promises, PAGE),
      promises('promises status=pending,broken', (a) => promisesPageSql(auth, { portfolioId: pf, statuses: ['pending', 'broken'] }, a, TAKE), s.deep.promises, 2 * PAGE, 2 * SERVED),
      promises('promises debtorId status=pending', (a) => promisesPageSql(auth, { portfolioId: pf, debtorId: s.busyDebtor, statuses: ['pending'] }, a, TAKE), s.deep.promises, BY_ID, CAPPED),
      promises('promises debtorId status=cancelled,partial', (a) => promisesPageSql(auth, { portfolioId: pf, debtorId: s.busyDebtor, statuses: ['cancelled', 'partial'] }, a, TAKE), s.deep.promises, BY_ID, CAPPED),
      campaigns('campaigns', (a) => campaignsPageSql(auth, { portfolioId: pf }, a, TAKE), s.deep.campaigns, BY_ID),
      campaigns('campaigns status=active', (a) => campaignsPageSql(auth, { portfolioId: pf, statuses: ['active'] }, a, TAKE), s.deep.campaigns, BY_ID),
      campaigns('campaigns status=active,paused, every reachable portfolio', (a) => campaignsPageSql(auth, { statuses: ['active', 'paused'] }, a, TAKE), s.deep.campaigns, BY_ID, 4),
      campaigns('campaign by id', () => campaignByIdSql(auth, s.campaign), null, BY_ID),
      events('events', (a) => eventsPageSql(auth, { portfolioId: pf }, position(a), TAKE), s.deep.outbox_events, PAGE),
      events('events, every reachable portfolio', (a) => eventsPageSql(auth, {}, position(a), TAKE), s.deep.outbox_events, 2 * PAGE, 2 * SERVED),
      events('events type=promise.created (10 %)', (a) => eventsPageSql(auth, { portfolioId: pf, types: ['promise.created'] }, position(a), TAKE), s.deep.outbox_events, CAPPED_PAGE, CAPPED),
      events('events from=9999-01-01 (none)', (a) => eventsPageSql(auth, { portfolioId: pf, from: '9999-01-01T00:00:00.000Z' }, position(a), TAKE), s.deep.outbox_events, CAPPED_PAGE, CAPPED),
      events('event by id', () => eventByIdSql(auth, s.event), null, BY_ID, 1),
    ];
  }

  /**
   * Measures every case of the portfolio; returns the pages over a bound. Each page is read
   * once first: the first index scan over the rows a mass update left dead (the retired debtors)
   * visits them and marks their index entries dead, once, until VACUUM removes them — a cost of
   * the update, met by whichever read comes first, not of the plan.
   */
  async function measure(state: string, sample: Sample): Promise<Measure[]> {
    const over: Measure[] = [];
    const cases = casesFor(sample);
    for (const c of cases) {
      const first = c.sql(null);
      await client.query(first.text, first.values);
    }
    const last = new Map<Table, string>();
    for (const c of cases) {
      if (c.deep === null || c.table === 'outbox_events' || last.has(c.table)) continue;
      last.set(c.table, (await client.query<{ id: string }>(`SELECT max(id) AS id FROM ${c.table}`)).rows[0].id);
    }
    for (const c of cases) {
      // Events pages resume after a feed position, not an id: no last page.
      const pages: Page[] = c.deep === null ? ['first'] : c.table === 'outbox_events' ? ['first', 'deep'] : ['first', 'deep', 'last'];
      for (const page of pages) {
        const cursor = page === 'first' ? null : page === 'deep' ? c.deep : last.get(c.table)!;
        for (const plan of ['custom', 'generic'] as const) {
          const cost = await planCost(client, c.sql(cursor), `force_${plan}_plan`, c.table);
          // A partitioned table's page merges its partitions' index scans in page order, each read one
          // row ahead of the merge (docs/adr/0051). A row by id in a generic plan may be probed once
          // per reachable portfolio (two here): the id's one partition, by its primary key.
          const examinedBound = (PARTITIONED.includes(c.table) && c.deep === null ? 2 * c.examined : c.examined) + cost.readAhead;
          const m = { state, name: c.name, page, plan, ...cost, bound: page === 'last' ? LAST_PAGE : c.bound, examinedBound };
          measures.push(m);
          const partitioned = PARTITIONED.includes(c.table);
          // By id: the one partition the id falls in (pruned at execution in a generic plan). Pages:
          // index scans in page order, never a whole partition read or sorted.
          // A last page's cursor is in the current month: the first partition (every earlier id) is skipped.
          const wrongPlan = partitioned && (c.deep === null ? cost.partitionsScanned !== 1 : cost.unordered)
            || (PRUNED_BY_CURSOR.includes(c.table) && page === 'last' && cost.partitions.includes(`${c.table}_p_legacy`));
          if (m.buffers > m.bound || m.examined > m.examinedBound || wrongPlan) over.push(m);
        }
      }
    }
    return over;
  }

  const statisticsRows = async () =>
    Number((await client.query(`SELECT count(*) FROM pg_stats WHERE schemaname = 'public' AND tablename IN ('debtors', 'debts', 'calls', 'payments', 'promises', 'campaigns', 'outbox_events')`)).rows[0].count);

  let a: Sample;
  let b: Sample;

  it('EMPTY statistics (never analysed): pages of a 20,000-debtor portfolio stay bounded', async () => {
    await loadDebtors(tenant.portfolioIds[0], 'A', PORTFOLIO_A, 0);
    log(`portfolio A: ${PORTFOLIO_A} debtors loaded`);
    a = await loadActivity(tenant.portfolioIds[0], 0.25);
    log('portfolio A: activity loaded');
    expect(await statisticsRows()).toBe(0);
    const over = await measure('EMPTY', a);
    log('EMPTY measured');
    expect(over).toEqual([]);
  }, 180_000);

  it('STALE statistics (analysed before a second portfolio was loaded): its pages stay bounded', async () => {
    await client.query('ANALYZE');
    await loadDebtors(tenant.portfolioIds[1], 'B', PORTFOLIO_B, PORTFOLIO_A);
    log(`portfolio B: ${PORTFOLIO_B} debtors loaded`);
    b = await loadActivity(tenant.portfolioIds[1], 0);
    log('portfolio B: activity loaded');
    const over = await measure('STALE', b);
    log('STALE measured');
    expect(over).toEqual([]);
  }, 180_000);

  it('FRESH statistics: pages of both portfolios stay bounded', async () => {
    await client.query('ANALYZE');
    const over = [...(await measure('FRESH A', a)), ...(await measure('FRESH B', b))];
    log('FRESH measured');
    expect(over).toEqual([]);
  }, 180_000);
});
