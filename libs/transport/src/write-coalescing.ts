import type { NatsConnection } from 'nats';

/** The part of nats.js's ProtocolHandler (nats 2.29, pinned) this module relies on. */
interface ProtocolWithFlush {
  flushPending(): void;
}

const coalesced = new WeakSet<object>();

/**
 * Makes `connection` write what was published during one turn of the event loop in one socket
 * write. nats.js flushes its outbound buffer in a microtask, that is after each I/O callback, so
 * under load every request (gateway) and every reply (api-core) cost a write syscall of its own:
 * the largest single item of both services' profiles (docs/adr/0034). Deferred to `setImmediate`,
 * the flush runs once after all the callbacks of the poll phase, for everything they published; a
 * message waits at most for the rest of that phase. The protocol handler outlives reconnects, so
 * this holds for the connection's whole life. Throws when nats.js no longer has the method
 * (write-coalescing.e2e-spec.ts pins the behaviour).
 */
export function coalesceWrites(connection: NatsConnection): void {
  const protocol = (connection as unknown as { protocol?: ProtocolWithFlush }).protocol;
  if (!protocol || typeof protocol.flushPending !== 'function') throw new Error('nats.js changed: ProtocolHandler.flushPending not found (write coalescing)');
  if (coalesced.has(protocol)) return;
  coalesced.add(protocol);
  const flush = protocol.flushPending.bind(protocol);
  let scheduled = false;
  const run = () => {
    scheduled = false;
    flush();
  };
  protocol.flushPending = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(run);
  };
}
