import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as it reached the receiver: the raw bytes before any parsing, for signature checks. */
export interface ReceivedRequest {
  /** 0-based arrival order on this receiver. */
  index: number;
  method: string;
  /** Path and query, e.g. "/" or "/hooks/a". */
  path: string;
  /** Lower-case header names, as Node gives them. */
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  /** Date.now() when the whole body had arrived. */
  receivedAt: number;
  /** Which accepted connection carried it (0-based), to tell keep-alive reuse from new connections. */
  connection: number;
  remoteAddress: string | undefined;
  /** The body parsed as JSON (throws on invalid JSON, which is a test failure anyway). */
  json<T = any>(): T;
  /** A header's value as a single string (undefined when absent). */
  header(name: string): string | undefined;
}

/**
 * How to answer one request. `hang`: never answer (the socket stays open until the client gives up or
 * the receiver closes); `destroy`: drop the connection without an answer.
 */
export type ReceiverAnswer =
  | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }
  | 'hang'
  | 'destroy';

export type Responder = (request: ReceivedRequest) => ReceiverAnswer;

/**
 * A local HTTP endpoint for webhook tests (node:http on 127.0.0.1, a free port): records every
 * request with its raw body, headers and arrival time, answers as scripted, counts connections
 * (so a test can prove that nothing even connected), and lets a test await requests instead of
 * sleeping.
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** Connections accepted so far (a TLS or plain HTTP client alike, whether or not it sent a request). */
  connections = 0;
  private readonly script: ReceiverAnswer[] = [];
  private fallback: ReceiverAnswer | Responder = { status: 200, body: '' };
  private readonly waiters = new Set<() => void>();
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: http.Server) {}

  static async start(answer: ReceiverAnswer | Responder = { status: 200, body: '' }): Promise<WebhookReceiver> {
    const server = http.createServer();
    const receiver = new WebhookReceiver(server);
    receiver.fallback = answer;
    server.keepAliveTimeout = 30_000;
    server.on('connection', (socket: Socket) => {
      const number = receiver.connections;
      receiver.connections += 1;
      (socket as Socket & { receiverConnection?: number }).receiverConnection = number;
      receiver.sockets.add(socket);
      socket.once('close', () => receiver.sockets.delete(socket));
      receiver.notify();
    });
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => receiver.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** http://127.0.0.1:<port>/ (append a path to tell several webhooks apart on one receiver). */
  get url(): string {
    return `http://127.0.0.1:${String(this.port)}/`;
  }

  /** Answers for the next requests, in order; once used up, the default answer applies again. */
  answerNext(...answers: ReceiverAnswer[]): this {
    this.script.push(...answers);
    return this;
  }

  /** The answer for every request not covered by `answerNext`. */
  answerAlways(answer: ReceiverAnswer | Responder): this {
    this.fallback = answer;
    return this;
  }

  /** Resolves with the first `count` requests once that many have arrived in total. */
  async waitForCount(count: number, timeoutMs = 10_000): Promise<ReceivedRequest[]> {
    await this.until(() => this.requests.length >= count, timeoutMs, () => `${count} request(s), got ${this.requests.length}`);
    return this.requests.slice(0, count);
  }

  /**
   * The next `count` requests after this call. Call it before causing them when they could
   * arrive before the call (or use waitForCount / waitFor).
   */
  next(count = 1, timeoutMs = 10_000): Promise<ReceivedRequest[]> {
    const from = this.requests.length;
    return this.until(() => this.requests.length >= from + count, timeoutMs, () => `${count} more request(s) after ${from}, got ${this.requests.length - from}`).then(() =>
      this.requests.slice(from, from + count));
  }

  /** The first request (already arrived or still to come) that satisfies `predicate`. */
  async waitFor(predicate: (request: ReceivedRequest) => boolean, timeoutMs = 10_000, what = 'a matching request'): Promise<ReceivedRequest> {
    let found: ReceivedRequest | undefined;
    await this.until(() => (found = this.requests.find(predicate)) !== undefined, timeoutMs, () => `${what} (${this.requests.length} other request(s))`);
    return found!;
  }

  /** Every request whose JSON body satisfies `predicate` (non-JSON bodies never match). */
  matching(predicate: (body: any) => boolean): ReceivedRequest[] {
    return this.requests.filter((r) => {
      try {
        return predicate(r.json());
      } catch {
        return false;
      }
    });
  }

  async close(): Promise<void> {
    for (const wake of this.waiters) wake();
    for (const socket of this.sockets) socket.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const headers = req.headers;
      const request: ReceivedRequest = {
        index: this.requests.length,
        method: req.method ?? '',
        path: req.url ?? '',
        headers,
        rawBody,
        receivedAt: Date.now(),
        connection: (req.socket as Socket & { receiverConnection?: number }).receiverConnection ?? -1,
        remoteAddress: req.socket.remoteAddress,
        json: () => JSON.parse(rawBody.toString('utf8')),
        header: (name: string) => {
          const value = headers[name.toLowerCase()];
          return Array.isArray(value) ? value.join(', ') : value;
        },
      };
      const scripted = this.script.shift();
      const answer = scripted ?? (typeof this.fallback === 'function' ? this.fallback(request) : this.fallback);
      this.requests.push(request);
      this.notify();
      if (answer === 'hang') return;
      if (answer === 'destroy') {
        req.socket.destroy();
        return;
      }
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  }

  private notify(): void {
    for (const wake of this.waiters) wake();
  }

  private until(done: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const wake = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new Error(`webhook receiver ${this.url}: waited ${timeoutMs} ms for ${describe()}`));
      }, timeoutMs);
      this.waiters.add(wake);
    });
  }
}
