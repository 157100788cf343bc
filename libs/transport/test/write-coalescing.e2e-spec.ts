import { connect, NatsConnection } from 'nats';
import { randomBytes } from 'node:crypto';
import { COALESCE_MAX_PENDING_BYTES, coalesceWrites, enableWriteCoalescing } from '../src';

/**
 * coalesceWrites over the real NATS (127.0.0.1:4222): messages published by separate I/O-like
 * callbacks of one event-loop phase leave in one socket write, in order, and all arrive. The plain
 * connection beside it shows what nats.js does without it (one write per callback).
 */
const NATS_URL = 'nats://127.0.0.1:4222';
const subject = `coalesce.${process.pid}.${randomBytes(3).toString('hex')}`;

/** Counts the socket writes of `nc` from now on (its transport's socket, nats.js 2.29). */
function countWrites(nc: NatsConnection): () => number {
  const socket = (nc as unknown as { protocol: { transport: { socket: { write: (...args: unknown[]) => boolean } } } }).protocol.transport.socket;
  const write = socket.write.bind(socket);
  let writes = 0;
  socket.write = (...args: unknown[]) => {
    writes += 1;
    return write(...args);
  };
  return () => writes;
}

/**
 * Publishes `count` messages, each from its own setImmediate callback: one check phase, microtasks
 * drained after each, as I/O callbacks of one poll phase. (Timers created across a millisecond
 * boundary would fire in different turns.)
 */
async function publishFromSeparateCallbacks(nc: NatsConnection, tag: string, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, (_, i) => new Promise<void>((resolve) => setImmediate(() => (nc.publish(subject, `${tag}${i}`), resolve())))),
  );
}

describe('coalesceWrites', () => {
  let receiver: NatsConnection;
  let plain: NatsConnection;
  let coalescing: NatsConnection;
  const received: string[] = [];

  beforeAll(async () => {
    [receiver, plain, coalescing] = await Promise.all([1, 2, 3].map(() => connect({ servers: NATS_URL })));
    receiver.subscribe(subject, { callback: (_err, msg) => received.push(msg.string()) });
    await receiver.flush();
    coalesceWrites(plain); // before the process turns the patch on: nothing changes (plain writes once per callback below)
    enableWriteCoalescing();
    coalesceWrites(coalescing);
    coalesceWrites(coalescing); // a second call changes nothing
  });
  afterAll(() => Promise.all([receiver, plain, coalescing].map((nc) => nc?.close())));

  async function receivedAll(tag: string, count: number): Promise<string[]> {
    for (let waited = 0; received.filter((m) => m.startsWith(tag)).length < count && waited < 5_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    return received.filter((m) => m.startsWith(tag));
  }

  it('sends what one phase of the event loop published in one write, in order; nats.js alone writes once per callback', async () => {
    const plainWrites = countWrites(plain);
    await publishFromSeparateCallbacks(plain, 'p', 20);
    expect(plainWrites()).toBe(20);

    const coalescedWrites = countWrites(coalescing);
    await publishFromSeparateCallbacks(coalescing, 'c', 20);
    // Nothing is written until the phase's callbacks have all run.
    expect(coalescedWrites()).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(coalescedWrites()).toBe(1);

    expect(await receivedAll('p', 20)).toHaveLength(20);
    expect(await receivedAll('c', 20)).toEqual(Array.from({ length: 20 }, (_, i) => `c${i}`));
  });

  it('does not hold more than COALESCE_MAX_PENDING_BYTES: a burst of large messages is written as it grows past it', async () => {
    const writes = countWrites(coalescing);
    const large = new Uint8Array(Math.ceil(COALESCE_MAX_PENDING_BYTES * 0.6)).fill(120);
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        for (let i = 0; i < 3; i += 1) coalescing.publish(`${subject}.large`, large);
        resolve();
      }),
    );
    // The second message took the buffer past the bound: written at once; the third waits for the turn's end.
    expect(writes()).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes()).toBe(2);
  });

  it('a request and its reply still make the round trip (flush and request/reply over a coalescing connection)', async () => {
    const responder = coalescing.subscribe(`${subject}.echo`, { callback: (_err, msg) => msg.respond(msg.data) });
    await coalescing.flush();
    const reply = await plain.request(`${subject}.echo`, new TextEncoder().encode('ping'), { timeout: 2_000 });
    expect(reply.string()).toBe('ping');
    responder.unsubscribe();
  });
});
