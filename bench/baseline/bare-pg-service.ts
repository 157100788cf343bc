/**
 * The baseline's service (bench/read-baseline.bench.ts): a plain NATS responder (queue group, own
 * subject prefix) running api-core's own SQL — the statements the bench built with api-core's
 * builder, handed over in BARE_STATEMENTS — through `pg` as named prepared statements, with a pool
 * of api-core's default size. Bodies are assembled by the project's `jsonListBody` / `jsonItemBody`
 * and cursors read by its `decodeCursor` (the dependency-free pagination module, imported directly),
 * so a page is byte-identical to api-core's by construction; the bench checks it anyway.
 * `/me` is answered with fixed bytes, no SQL: "Fastify → NATS → static reply".
 */
import { readFileSync } from 'node:fs';
import { connect, Msg } from 'nats';
import { Pool } from 'pg';
import { decodeCursor, jsonItemBody, jsonListBody, JsonRow, parseLimit } from '../../libs/contracts/src/pagination';
import { BaselineEnv, EMPTY_REPLY, env, ListRequest, QUEUE_GROUP, runBaselineProcess, StatementsFile, StatementTemplate, subjects } from './protocol';

/** The template's values with this request's parts written at their positions. */
function valuesFor(t: StatementTemplate, parts: { afterId?: string; portfolioId?: string; id?: string; take?: number }): unknown[] {
  const values = t.values.slice();
  for (const i of t.afterIdAt) values[i] = parts.afterId;
  for (const i of t.portfolioIdAt) values[i] = parts.portfolioId;
  for (const i of t.idAt) values[i] = parts.id;
  for (const i of t.takeAt) values[i] = parts.take;
  return values;
}

async function main(): Promise<() => Promise<unknown>> {
  const statements = JSON.parse(readFileSync(env(BaselineEnv.statements), 'utf8')) as StatementsFile;
  const meBody = Buffer.from(statements.meBody, 'utf8');
  const pool = new Pool({ connectionString: env(BaselineEnv.databaseUrl), max: Number(env(BaselineEnv.poolSize)), application_name: 'bare-pg-service' });
  pool.on('error', () => undefined); // an idle connection dropped: the next query opens another
  const query = async (t: StatementTemplate, values: unknown[]) => (await pool.query<JsonRow>({ name: t.name, text: t.text, values })).rows;

  const nc = await connect({ servers: [env(BaselineEnv.natsUrl)], name: 'bare-pg-service', noAsyncTraces: true });
  const subject = subjects(env(BaselineEnv.subjectPrefix));
  const respond = (msg: Msg, work: () => Promise<string | null>) =>
    void work().then(
      (body) => msg.respond(body === null ? EMPTY_REPLY : Buffer.from(body, 'utf8')),
      (err: unknown) => {
        process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
        msg.respond(EMPTY_REPLY);
      },
    );

  nc.subscribe(subject.list, {
    queue: QUEUE_GROUP,
    callback: (err, msg) => {
      if (err) return;
      respond(msg, async () => {
        const input = JSON.parse(msg.string()) as ListRequest;
        const limit = parseLimit(input.limit);
        const afterId = input.cursor ? decodeCursor(input.cursor) : null;
        if (Number.isNaN(limit) || (input.cursor && afterId === null)) return null;
        const t = input.portfolioId
          ? afterId ? statements.listInPortfolioAfter : statements.listInPortfolio
          : afterId ? statements.listAfter : statements.list;
        const rows = await query(t, valuesFor(t, { afterId: afterId ?? undefined, portfolioId: input.portfolioId, take: limit + 1 }));
        return jsonListBody(rows, limit);
      });
    },
  });

  nc.subscribe(subject.get, {
    queue: QUEUE_GROUP,
    callback: (err, msg) => {
      if (err) return;
      respond(msg, async () => {
        const t = statements.byId;
        const [row] = await query(t, valuesFor(t, { id: msg.string(), take: 1 }));
        return row ? jsonItemBody(row) : null;
      });
    },
  });

  // The events feed's first page: api-core's statement, its text rows joined by jsonListBody as api-core does.
  nc.subscribe(subject.events, {
    queue: QUEUE_GROUP,
    callback: (err, msg) => {
      if (err) return;
      respond(msg, async () => {
        const limit = parseLimit((JSON.parse(msg.string()) as ListRequest).limit);
        if (Number.isNaN(limit)) return null;
        const t = statements.events;
        return jsonListBody(await query(t, valuesFor(t, { take: limit + 1 })), limit);
      });
    },
  });

  nc.subscribe(subject.me, {
    queue: QUEUE_GROUP,
    callback: (err, msg) => {
      if (!err) msg.respond(meBody);
    },
  });

  await nc.flush();
  process.stdout.write(`${JSON.stringify({ msg: 'bare-pg-service ready' })}\n`);

  return () => nc.drain().then(() => pool.end());
}

runBaselineProcess(main);
