import { createServer, Server, Socket, connect as tcpConnect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { RedisConfig } from '@dc/config';
import { connectRedis, createRedis } from '../src';

/**
 * A worker's start-up connection to the real Redis (127.0.0.1:6379) through a proxy that closes
 * the first connection it takes, as a connect timeout on a busy machine does: ioredis's connect()
 * gives up at that first close although it retries; connectRedis waits for the retry.
 */
describe('connectRedis: a start-up that survives one failed connection attempt', () => {
  let proxy: Server;
  let port: number;
  let accepted = 0;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    proxy = createServer((client) => {
      sockets.add(client);
      accepted += 1;
      if (accepted === 1) return void client.destroy(); // the first attempt fails
      const upstream = tcpConnect(6379, '127.0.0.1');
      sockets.add(upstream);
      client.pipe(upstream).pipe(client);
      const close = () => (client.destroy(), upstream.destroy());
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    port = (proxy.address() as AddressInfo).port;
  });
  beforeEach(() => {
    accepted = 0;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => proxy.close(resolve));
  });

  const server = (): RedisConfig => ({ url: `redis://127.0.0.1:${port}`, keyPrefix: 'dc', commandTimeoutMs: 1000, connectTimeoutMs: 2000 });

  it("ioredis's own connect() rejects at the first closed attempt (what made a worker exit at start-up)", async () => {
    const connection = createRedis(server(), { lazyConnect: true, maxRetriesPerRequest: null });
    connection.on('error', () => undefined);
    try {
      await expect(connection.connect()).rejects.toThrow('Connection is closed.');
    } finally {
      connection.disconnect();
    }
  });

  it('connectRedis resolves once a retry is ready, and the connection answers', async () => {
    const connection = createRedis(server(), { lazyConnect: true, maxRetriesPerRequest: null });
    connection.on('error', () => undefined);
    try {
      await connectRedis(connection, 10_000);
      expect(connection.status).toBe('ready');
      expect(accepted).toBe(2);
      expect(await connection.ping()).toBe('PONG');
    } finally {
      connection.disconnect();
    }
  });

  it('connectRedis fails with a clear message when Redis is never ready within the bound', async () => {
    const closed = createServer((client) => client.destroy());
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const connection = createRedis({ ...server(), url: `redis://127.0.0.1:${(closed.address() as AddressInfo).port}` }, { lazyConnect: true, maxRetriesPerRequest: null });
    connection.on('error', () => undefined);
    try {
      await expect(connectRedis(connection, 500)).rejects.toThrow('Redis not ready within 500 ms');
    } finally {
      connection.disconnect();
      await new Promise((resolve) => closed.close(resolve));
    }
  });

  it('connectRedis fails at once on a connection that was ended', async () => {
    const connection = createRedis(server(), { lazyConnect: true, maxRetriesPerRequest: null, retryStrategy: () => null });
    connection.on('error', () => undefined);
    await expect(connectRedis(connection, 10_000)).rejects.toThrow('the Redis connection ended before it was ready');
  });
});
