import type { NatsConnection } from 'nats';

/** The part of nats.js's ProtocolHandler (nats 2.29, pinned) this module relies on. */
interface ProtocolWithFlush {
  flushPending(): void;
  outbound: { size(): number };
}

/** Past this many bytes waiting, the flush is not deferred: a burst of large messages stays bounded in memory. */
export const COALESCE_MAX_PENDING_BYTES = 1024 * 1024;

const coalesced = new WeakSet<object>();

let enabled = false;

/**
 * Turns write coalescing on for the NATS connections this process opens from now on (the runtime
 * patch `nats-write-coalescing`). Off, coalesceWrites leaves nats.js as it is.
 */
export function enableWriteCoalescing(): void {
  enabled = true;
}

/**
 * Makes `connection` write what was published during one turn of the event loop in one socket
 * write. nats.js flushes its outbound buffer in a microtask, that is after each I/O callback, so
 * under load every request (gateway) and every reply (api-core) cost a write syscall of its own:
 * the largest single item of both services' profiles (docs/adr/0034). Deferred to `setImmediate`,
 * the flush runs once after all the callbacks of the poll phase, for everything they published; a
 * message waits at most for the rest of that phase. Past COALESCE_MAX_PENDING_BYTES waiting, the
 * flush happens at once (nats.js flushes inline past 32 KiB). The protocol handler outlives
 * reconnects, so this holds for the connection's whole life. Throws when nats.js no longer has what
 * this relies on (write-coalescing.e2e-spec.ts pins the behaviour). Does nothing unless
 * enableWriteCoalescing was called.
 */
export function coalesceWrites(connection: NatsConnection): void {
  if (!enabled) return;
  const protocol = (connection as unknown as { protocol?: ProtocolWithFlush }).protocol;
  if (!protocol || typeof protocol.flushPending !== 'function' || typeof protocol.outbound?.size !== 'function') {
    throw new Error('nats.js changed: ProtocolHandler.flushPending or outbound not found (write coalescing)');
  }
  if (coalesced.has(protocol)) return;
  coalesced.add(protocol);
  const flush = protocol.flushPending.bind(protocol);
  let scheduled = false;
  const run = () => {
    scheduled = false;
    flush();
  };
  protocol.flushPending = () => {
    if (protocol.outbound.size() >= COALESCE_MAX_PENDING_BYTES) return flush();
    if (scheduled) return;
    scheduled = true;
    setImmediate(run);
  };
}
