import {
  createTenant, eventually, fixtureId, insertDebtor, OperatorClient, ServiceProcess, Stack, Tenant, withDatabase,
} from '@dc/testing';

/**
 * Shared by the scale and graceful-shutdown end-to-end files (docs/adr/0033): the
 * environment of a stack with every app replicated, the worker processes, and the evidence that
 * each unit of work was done once — api-core's `handled` log line per request id, the importer's
 * `import completed` line per import, the delivery rows and attempts per delivery.
 */

/** Every service: receivers are http://127.0.0.1 (private targets allowed), webhook timings shortened. */
export const SCALE_ENV: Record<string, string> = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RELAY_INTERVAL_MS: '100',
  WEBHOOK_RETRY_DELAY_MS: '1100',
  WEBHOOK_RETRY_JITTER_MS: '0',
  WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
  NATS_REQUEST_TIMEOUT_MS: '20000',
  IMPORT_CHUNK_ROWS: '500',
};

export async function startImporter(stack: Stack, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const importer = await stack.startService('importer', env);
  await importer.waitForLog((l) => l.msg === 'importer ready', 30_000);
  return importer;
}

export async function startDispatcher(stack: Stack, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const dispatcher = await stack.startService('webhook-dispatcher', env);
  await dispatcher.waitForLog((l) => l.msg === 'webhook-dispatcher ready', 30_000);
  return dispatcher;
}

/** How many `handled` lines each api-core logged for `requestId` (its RPC `pattern`). */
export function handledCounts(cores: ServiceProcess[], pattern: string): Map<string, number>[] {
  return cores.map((core) => {
    const counts = new Map<string, number>();
    for (const line of core.logs) {
      if (line.msg === 'handled' && line.pattern === pattern) counts.set(String(line.requestId), (counts.get(String(line.requestId)) ?? 0) + 1);
    }
    return counts;
  });
}

/**
 * Waits until every request id is handled (log lines arrive through the pipes a little after the
 * answers) and answers, per api-core, how many of `requestIds` it handled; fails on any id handled
 * twice or by two processes, and on a handled id nobody sent.
 */
export async function handledOnce(cores: ServiceProcess[], pattern: string, requestIds: string[], timeoutMs = 15_000): Promise<number[]> {
  let perCore: number[] = [];
  await eventually(() => {
    const counts = handledCounts(cores, pattern);
    const all = counts.flatMap((c) => [...c.entries()]);
    expect(all.filter(([, n]) => n !== 1)).toEqual([]);
    expect(all.map(([id]) => id).sort()).toEqual([...requestIds].sort());
    perCore = counts.map((c) => c.size);
  }, timeoutMs);
  return perCore;
}

export interface Payer {
  tenant: Tenant;
  portfolioId: string;
  debtorId: string;
}

/** A tenant with one debtor (inserted by SQL) to pay for. */
export async function payer(stack: Stack, operator: OperatorClient, name: string): Promise<Payer> {
  const tenant = await createTenant(operator, { name });
  const portfolioId = tenant.portfolioIds[0];
  const debtorId = await withDatabase(stack.databaseUrl, (c) => insertDebtor(c, { portfolioId }));
  return { tenant, portfolioId, debtorId };
}

export interface PaymentAnswer {
  externalId: string;
  /** HTTP status, or undefined when the request got no answer (`error` says why). */
  status?: number;
  requestId?: string;
  body?: any;
  connection?: string | null;
  retryAfter?: string | null;
  error?: string;
}

/** POST /public/v1/payments through `gateway` (a fetch: keep-alive connections, as a client's). */
export async function pay(gateway: string, p: Payer, externalId = fixtureId('pay-ext')): Promise<PaymentAnswer> {
  try {
    const res = await fetch(`${gateway}/public/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${p.tenant.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ externalId, portfolioId: p.portfolioId, debtorId: p.debtorId, amount: 1, currency: 'EUR', paymentDate: '2026-01-15', method: 'card' }),
    });
    const text = await res.text();
    return {
      externalId,
      status: res.status,
      requestId: res.headers.get('x-request-id') ?? undefined,
      body: text ? JSON.parse(text) : undefined,
      connection: res.headers.get('connection'),
      retryAfter: res.headers.get('retry-after'),
    };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { externalId, error: cause?.code ?? cause?.message ?? (err as Error).message };
  }
}

/** The payments of a portfolio stored in the database, by externalId. */
export async function storedPayments(stack: Stack, portfolioId: string): Promise<string[]> {
  return withDatabase(stack.databaseUrl, async (c) =>
    (await c.query<{ external_id: string }>('SELECT external_id FROM payments WHERE portfolio_id = $1 ORDER BY external_id', [portfolioId])).rows.map((r) => r.external_id));
}

/**
 * `count` payment.registered events of one payment, written straight into the outbox (cloned rows,
 * another payment id each) in one transaction: a burst the dispatchers' relays claim at once,
 * without `count` API round trips. Answers the payment ids.
 */
export async function cloneOutboxEvents(stack: Stack, paymentId: string, count: number): Promise<string[]> {
  return withDatabase(stack.databaseUrl, async (c) => {
    const [row] = (await c.query(`SELECT organization_id, portfolio_id, type, livemode, payload FROM outbox_events WHERE payload->>'id' = $1`, [paymentId])).rows;
    if (!row) throw new Error(`no outbox event for payment ${paymentId}`);
    const ids = Array.from({ length: count }, () => fixtureId('pay'));
    await c.query(
      `INSERT INTO outbox_events (id, organization_id, portfolio_id, type, livemode, payload)
       SELECT e, $2, $3, $4, $5, p::json FROM unnest($1::text[], $6::text[]) AS u(e, p)`,
      [ids.map(() => fixtureId('evt')), row.organization_id, row.portfolio_id, row.type, row.livemode, ids.map((id) => JSON.stringify({ ...row.payload, id }))],
    );
    return ids;
  });
}

export interface DeliveryRow {
  id: string;
  status: string;
  attempt_count: number;
  attempts: number;
  payment_id: string;
}

/** The deliveries of a webhook with their recorded attempts (rows of webhook_delivery_attempts). */
export async function deliveriesOf(stack: Stack, webhookId: string): Promise<DeliveryRow[]> {
  return withDatabase(stack.databaseUrl, async (c) =>
    (
      await c.query<DeliveryRow>(
        `SELECT d.id, d.status, d.attempt_count, e.payload->>'id' AS payment_id,
                (SELECT count(*)::int FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id) AS attempts
           FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
          WHERE d.webhook_id = $1 ORDER BY d.id`,
        [webhookId],
      )
    ).rows);
}

/** Live debtors of a portfolio: total, distinct documents, distinct external ids (duplicates show). */
export async function liveDebtors(stack: Stack, portfolioId: string): Promise<{ n: number; documents: number; external_ids: number }> {
  return withDatabase(stack.databaseUrl, async (c) =>
    (
      await c.query(
        `SELECT count(*)::int AS n, count(DISTINCT (identity_document_type, identity_document_number))::int AS documents,
                count(DISTINCT external_id)::int AS external_ids
           FROM debtors WHERE portfolio_id = $1 AND deleted_at IS NULL`,
        [portfolioId],
      )
    ).rows[0]);
}

/** How many `import completed` lines each process logged for `importId`. */
export function completions(processes: ServiceProcess[], importId: string): number[] {
  return processes.map((p) => p.logs.filter((l) => l.msg === 'import completed' && l.importId === importId).length);
}
