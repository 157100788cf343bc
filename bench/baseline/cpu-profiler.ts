import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WebSocket } from 'undici';

/**
 * A V8 CPU profile of a running service taken over its inspector (Chrome DevTools Protocol), so a
 * profile covers one scenario rather than the process's whole life (`--cpu-prof`). The service runs
 * with `NODE_OPTIONS=--inspect=127.0.0.1:0`, which prints the inspector's address on stderr.
 */
export class InspectorSession {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
      const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id!);
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result);
    });
  }

  /** Connects to the inspector whose address a service printed on stderr. */
  static async attach(stderr: string): Promise<InspectorSession> {
    const url = /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
    if (!url) throw new Error('the service has no inspector (was it started with NODE_OPTIONS=--inspect=127.0.0.1:0?)');
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve(), { once: true });
      socket.addEventListener('error', () => reject(new Error(`cannot reach the inspector at ${url}`)), { once: true });
    });
    const session = new InspectorSession(socket);
    await session.send('Profiler.enable');
    await session.send('Profiler.setSamplingInterval', { interval: 1000 }); // µs, as --cpu-prof
    return session;
  }

  send<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  start(): Promise<unknown> {
    return this.send('Profiler.start');
  }

  /** Stops profiling and writes the profile (Chrome DevTools' Performance panel or speedscope open it). */
  async stopInto(file: string): Promise<string> {
    const { profile } = await this.send<{ profile: unknown }>('Profiler.stop');
    await writeFile(file, JSON.stringify(profile));
    return path.resolve(file);
  }

  close(): void {
    this.socket.close();
  }
}
