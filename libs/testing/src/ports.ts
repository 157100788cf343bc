import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP port nobody listens on right now, for a server started a moment later. Chosen below the
 * kernel's ephemeral range (ip_local_port_range), because a port the kernel picked for us (`listen(0)`)
 * and released is free for its next pick: any process binding port 0 or opening a connection
 * could take it before our server binds it (a gateway failed with EADDRINUSE so). Below the range
 * only another explicit choice like this one can collide. Falls back to the kernel's pick.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralRangeStart();
  const from = Math.max(1024, low - 12_000);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (await canListen(port)) return port;
  }
  return listenAndRelease(0);
}

/** The first port of the kernel's ephemeral range (Linux; 32768, its default, elsewhere). */
function ephemeralRangeStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 ? low : 32768;
  } catch {
    return 32768;
  }
}

function canListen(port: number): Promise<boolean> {
  return listenAndRelease(port).then(
    () => true,
    () => false,
  );
}

/** Listens on 127.0.0.1:`port` (0: the kernel's pick) and closes at once; the port it had. */
async function listenAndRelease(port: number): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return bound;
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` (within `timeoutMs`). */
export function accepts(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, timeout: timeoutMs });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}
