import { createBullBoard } from '@bull-board/api';
import { FastifyAdapter } from '@bull-board/fastify';
import { AppError, ErrorCode, Header, IMPORTS_QUEUE, WEBHOOK_DELIVERIES_QUEUE } from '@dc/contracts';
import { AppConfig, bullPrefix } from '@dc/config';
import type { Logger } from '@dc/observability';
import { createRedis } from '@dc/transport';
import type { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { OperatorToken } from '../auth/operator-token.guard';
import { envelope } from '../errors/envelope';

/** Where the board lives on the operator listener (its page, static files and API below it). */
export const QUEUE_BOARD_PATH = '/operator/queues';
/** The queues shown, in this order. */
export const BOARD_QUEUES = [IMPORTS_QUEUE, WEBHOOK_DELIVERIES_QUEUE] as const;

const REFUSED = new AppError(
  ErrorCode.Unauthorized,
  'Missing or wrong operator token: send Authorization: Bearer <OPERATOR_TOKEN>, or HTTP Basic with the operator token as the password.',
);

/**
 * Bull Board (docs/adr/0032) on the operator listener at /operator/queues: the imports and
 * webhook-deliveries queues, read-only (their jobs mirror rows of the database, which decides
 * what runs: a job retried or removed behind its back would contradict them; the board answers
 * 405 to every change). Open to a bearer of the operator token, or to HTTP Basic with the token
 * as the password, so a browser can open it (401 with a Basic challenge otherwise).
 *
 * Its queues share one Redis connection of their own (the gateway's ACL user, which a selector of
 * docker/redis/acl.js lets read these queues' keys), opened by the board's first authorised
 * request and never part of readiness: without Redis the board fails and the API is unaffected.
 * The queues never write (skipMetasUpdate). BullMQ itself is loaded then too: ~4 MiB of heap that
 * every full collection would otherwise mark again in a gateway that never opens the board (ADR 0035).
 */
export async function registerQueueBoard(app: FastifyInstance, config: AppConfig, operatorToken: OperatorToken, logger: Logger): Promise<{ close(): Promise<void> }> {
  const serverAdapter = new FastifyAdapter().setBasePath(QUEUE_BOARD_PATH);
  // No queue yet: they (and their Redis connection) are opened by the first authorised request.
  const { setQueues } = createBullBoard({ queues: [], serverAdapter, options: { uiConfig: { boardTitle: 'Queues', showWorkers: false } } });
  let opened: Promise<BoardQueues> | undefined;
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', async (request, reply) => {
        if (operatorToken.acceptsBearerOrBasic(request.headers.authorization)) {
          opened ??= openQueues(config, logger, setQueues);
          await opened;
          return;
        }
        const { status, body } = envelope(REFUSED, String(request.id));
        return reply.status(status).header('www-authenticate', 'Basic realm="queues", charset="UTF-8"').header(Header.RequestId, String(request.id)).send(body);
      });
      await scope.register(serverAdapter.registerPlugin());
    },
    { prefix: QUEUE_BOARD_PATH },
  );
  return { close: async () => (await opened)?.close() };
}

interface BoardQueues {
  queues: Queue[];
  close(): Promise<void>;
}

/** The board's queues on a connection of their own; they never write (skipMetasUpdate, read-only adapters). */
async function openQueues(config: AppConfig, logger: Logger, setQueues: (adapters: BullMQAdapter[]) => void): Promise<BoardQueues> {
  const [{ Queue }, { BullMQAdapter }] = await Promise.all([import('bullmq'), import('@bull-board/api/bullMQAdapter')]);
  const connection = createRedis(config.redis, {
    maxRetriesPerRequest: 1,
    commandTimeout: config.redis.commandTimeoutMs,
    connectionName: 'gateway-queue-board',
  });
  connection.on('error', (err) => logger.debug({ err: err.message }, 'redis error (queue board)'));
  const queues = BOARD_QUEUES.map((name) => new Queue(name, { connection, prefix: bullPrefix(config.redis), skipMetasUpdate: true }));
  for (const queue of queues) queue.on('error', (err) => logger.debug({ err: err.message, queue: queue.name }, 'queue board error'));
  setQueues(queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })));
  return {
    queues,
    close: async () => {
      await Promise.all(queues.map((queue) => queue.close().catch(() => undefined)));
      connection.disconnect();
    },
  };
}
