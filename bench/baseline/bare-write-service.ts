/**
 * The write baseline's service (bench/writes.bench.ts): a plain NATS responder (queue group, own
 * subject prefix) running api-core's own statements, built by its own builders imported directly,
 * through `pg` as named prepared statements (named as Database.prepared names them) on a pool of
 * api-core's default size, with no transaction:
 * - a payment: `paymentContextSql` (every rule's input, with the reach condition
 *   `reachablePortfolioSql` writes for the AuthContext in BARE_AUTH), then `insertPaymentSql` (the
 *   payment and its outbox row in one statement); view, derived currency and event built as
 *   RegisterPaymentUseCase builds them; an earlier payment under the externalId is answered as it is (200);
 * - the operator's promise and call: `promiseContextSql` / `callContextSql`, then `insertPromiseSql` /
 *   `insertCallSql`.
 * No auth, rate limit, validation, logging or retry comparison. Bodies of the bench's shapes only
 * (no debtId, method, reference, call id or campaign).
 */
import { AuthContext, CreateCallDto, CreatePromiseDto, DEFAULT_PAYMENT_METHOD, PaymentView, PromiseView, RegisterPaymentDto } from '@dc/contracts';
import { newId, Prisma } from '@dc/database';
import { createHash } from 'node:crypto';
import { connect } from 'nats';
import { Pool, QueryResultRow } from 'pg';
import { CallContext, callContextSql, CallRow, insertCallSql, toCallView } from '../../apps/api-core/src/calls/calls.repository';
import { eventEmission } from '../../apps/api-core/src/outbox/event-emission';
import { insertPaymentSql, paymentContextOf, paymentContextSql } from '../../apps/api-core/src/payments/payments.repository';
import { insertPromiseSql, PromiseContext, promiseContextSql } from '../../apps/api-core/src/promises/promises.repository';
import { reachablePortfolioSql } from '../../apps/api-core/src/reach/reach.repository';
import { BaselineEnv, EMPTY_REPLY, env, IntakeRequest, runBaselineProcess, statusReply, subjects, WRITE_QUEUE_GROUP } from './protocol';

type PaymentRequest = Pick<RegisterPaymentDto, 'portfolioId' | 'debtorId' | 'amount' | 'currency' | 'paymentDate' | 'externalId'>;
type ContextRow = Parameters<typeof paymentContextOf>[0];

const NOT_FOUND = '{"error":{"code":"not_found"}}';

async function main(): Promise<() => Promise<unknown>> {
  const reach = reachablePortfolioSql(JSON.parse(env(BaselineEnv.auth)) as AuthContext);
  const pool = new Pool({ connectionString: env(BaselineEnv.databaseUrl), max: Number(env(BaselineEnv.poolSize)), application_name: 'bare-write-service' });
  pool.on('error', () => undefined); // an idle connection dropped: the next query opens another
  /** SQL text → statement name, as Database.prepared: `q_` and 20 hex digits of the text's SHA-1. */
  const names = new Map<string, string>();
  const prepared = async <T extends QueryResultRow>(sql: Prisma.Sql): Promise<T[]> => {
    let name = names.get(sql.text);
    if (!name) names.set(sql.text, (name = `q_${createHash('sha1').update(sql.text).digest('hex').slice(0, 20)}`));
    return (await pool.query<T>({ name, text: sql.text, values: sql.values })).rows;
  };
  const readContext = async (input: PaymentRequest) => {
    const [row] = await prepared<ContextRow>(paymentContextSql(input.portfolioId, reach, input.debtorId, null, input.externalId));
    return row ? paymentContextOf(row) : null;
  };

  const register = async (body: string): Promise<Buffer> => {
    const input = JSON.parse(body) as PaymentRequest;
    const context = await readContext(input);
    if (!context) return statusReply(404, NOT_FOUND);
    if (context.earlier) return statusReply(200, JSON.stringify({ data: context.earlier.payment }));
    if (!context.debtorLive) return statusReply(404, NOT_FOUND);
    const at = new Date().toISOString();
    const derived = context.debtCurrencies.length === 1 ? context.debtCurrencies[0] : context.identityCurrency[0];
    const payment: PaymentView = {
      id: newId('pay'),
      externalId: input.externalId,
      portfolioId: input.portfolioId,
      debtorId: input.debtorId,
      debtId: null,
      promiseId: null,
      amount: input.amount,
      currency: input.currency ?? derived,
      paymentDate: input.paymentDate,
      paymentMethod: DEFAULT_PAYMENT_METHOD,
      reference: null,
      createdAt: at,
      updatedAt: at,
    };
    const emission = eventEmission(context.eventSource, context.organizationId);
    const event = emission && { id: newId('evt'), ...emission };
    const [row] = await prepared<{ inserted: number }>(insertPaymentSql({ payment, currencyDerived: !input.currency, source: 'api', event }));
    if (row.inserted === 1) return statusReply(201, JSON.stringify({ data: payment }));
    // A parallel first attempt with the same externalId committed meanwhile.
    const now = await readContext(input);
    return now?.earlier ? statusReply(200, JSON.stringify({ data: now.earlier.payment })) : statusReply(500, '{"error":{"code":"internal_error"}}');
  };

  /** The operator's promise intake: promiseContextSql, then insertPromiseSql (the bench's bodies: no debt, call or currency). */
  const createPromise = async (text: string): Promise<Buffer> => {
    const { portfolioId, body } = JSON.parse(text) as IntakeRequest & { body: CreatePromiseDto };
    const [context] = await prepared<PromiseContext>(promiseContextSql(portfolioId, body.debtorId, null, null));
    if (!context?.debtorLive) return statusReply(404, NOT_FOUND);
    const at = new Date().toISOString();
    const promise: PromiseView = {
      id: newId('prm'), portfolioId, debtorId: body.debtorId, debtId: null, callId: null, amount: body.amount,
      currency: body.currency ?? context.identityCurrency[0], promiseDate: body.promiseDate, status: 'pending',
      paymentId: null, fulfillmentDate: null, createdAt: at, updatedAt: at,
    };
    const emission = eventEmission(context.eventSource, context.organizationId);
    await prepared(insertPromiseSql(promise, emission && { id: newId('evt'), ...emission }));
    return statusReply(201, JSON.stringify({ data: promise }));
  };

  /** The operator's call intake: callContextSql, then insertCallSql (the bench's bodies: not completed, so no event). */
  const createCall = async (text: string): Promise<Buffer> => {
    const { portfolioId, body } = JSON.parse(text) as IntakeRequest & { body: CreateCallDto };
    const [context] = await prepared<CallContext>(callContextSql(portfolioId, body.debtorId, null));
    if (!context?.debtorLive) return statusReply(404, NOT_FOUND);
    const call = { portfolioId, debtorId: body.debtorId, direction: body.direction, status: body.status, fromNumber: body.fromNumber, toNumber: body.toNumber };
    const [row] = await prepared<CallRow>(insertCallSql(call, newId('call'), new Date().toISOString(), null));
    return statusReply(201, JSON.stringify({ data: toCallView(row) }));
  };

  const nc = await connect({ servers: [env(BaselineEnv.natsUrl)], name: 'bare-write-service', noAsyncTraces: true });
  const subject = subjects(env(BaselineEnv.subjectPrefix));
  for (const [name, handle] of [[subject.registerPayment, register], [subject.createPromise, createPromise], [subject.createCall, createCall]] as const) {
    nc.subscribe(name, {
      queue: WRITE_QUEUE_GROUP,
      callback: (err, msg) => {
        if (err) return;
        void handle(msg.string()).then(
          (reply) => msg.respond(reply),
          (error: unknown) => {
            process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
            msg.respond(EMPTY_REPLY);
          },
        );
      },
    });
  }

  await nc.flush();
  process.stdout.write(`${JSON.stringify({ msg: 'bare-write-service ready' })}\n`);

  return () => nc.drain().then(() => pool.end());
}

runBaselineProcess(main);
