import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ConnectionOptions } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
import { systemLookup, type LookupAll } from './address-lookup';
import { classifyAttemptError, timeoutText, type AttemptErrorClass } from './attempt-error';
import { AddressRefusedError, dialedAddress, GuardedConnector } from './guarded-connector';
import { nonPublicLabel, withArticle } from './public-address';
import { hostOf, parseUrl } from './webhook-url';

export interface AttemptOutcome {
  /** Any 2xx. */
  ok: boolean;
  statusCode: number | null;
  /** Whole milliseconds (the attempt log's column is an integer). */
  durationMs: number;
  /** null when ok; 'http_status' for any non-2xx, 3xx included (redirects are never followed). */
  errorClass: AttemptErrorClass | null;
  /** Short text: 'HTTP 302 (redirects are not followed)', 'no response within 10000 ms', 'connect ECONNREFUSED', … */
  error: string | null;
  /** The IP connected to (or refused). */
  address: string | null;
}

export interface WebhookHttpClientOptions {
  /** The whole attempt: lookup, connect, TLS, request, response headers and body. */
  timeoutMs: number;
  /** Development and tests only: http and non-public targets. */
  allowPrivateTargets: boolean;
  /** Keep-alive connections per origin (default 32). */
  connectionsPerOrigin?: number;
  lookup?: LookupAll;
  /** TLS options for every connection, e.g. `ca` for a private CA (it replaces Node's bundle). */
  tls?: ConnectionOptions;
}

/** Read at most this much of a response: a receiver must not make us buffer megabytes. */
export const RESPONSE_BODY_LIMIT_BYTES = 64 * 1024;
const DEFAULT_CONNECTIONS_PER_ORIGIN = 32;
const MAX_CACHED_TARGETS = 10_000;
const JSON_CONTENT_TYPE = 'application/json';

/** Where a URL goes, parsed and checked once per URL (the dispatcher sends to the same few many times). */
interface Target {
  origin: string;
  path: string;
  refusal: { errorClass: AttemptErrorClass; error: string; address: string | null } | null;
}

/**
 * The SSRF-proof webhook sender (docs/adr/0020): undici with one keep-alive Agent (pipelining 1),
 * whose connections are opened by GuardedConnector — every resolved address checked, the socket
 * connected to a checked one. Never follows redirects (no redirect interceptor: a 3xx is a
 * failure), never throws, and ends every attempt by `timeoutMs`.
 */
export class WebhookHttpClient {
  private readonly agent: Agent;
  private readonly connector: GuardedConnector;
  private readonly targets = new Map<string, Target>();
  private readonly context: AttemptContext;
  private readonly allowPrivateTargets: boolean;

  constructor(options: WebhookHttpClientOptions) {
    if (!(options.timeoutMs > 0)) throw new RangeError('timeoutMs must be positive');
    this.allowPrivateTargets = options.allowPrivateTargets;
    this.connector = new GuardedConnector({
      allowPrivateTargets: options.allowPrivateTargets,
      lookup: options.lookup ?? systemLookup,
      timeoutMs: options.timeoutMs,
      tls: options.tls,
    });
    this.context = { timeoutMs: options.timeoutMs, connector: this.connector };
    this.agent = new Agent({
      connect: this.connector.connect,
      connections: options.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN,
      pipelining: 1,
      // Backstops: the attempt's own timer already ends it at timeoutMs.
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  /**
   * POST `body` with `headers` (content-type application/json is added unless `headers` has a
   * lowercase 'content-type'). Never throws; never follows redirects.
   */
  post(url: string, body: string, headers: Record<string, string>): Promise<AttemptOutcome> {
    const started = performance.now();
    const target = this.target(url);
    if (target.refusal) return Promise.resolve({ ok: false, statusCode: null, durationMs: elapsedMs(started), ...target.refusal });
    return new Promise<AttemptOutcome>((resolve) => {
      const attempt = new Attempt(this.context, target.origin, started, resolve);
      const sent = headers['content-type'] === undefined ? { ...headers, 'content-type': JSON_CONTENT_TYPE } : headers;
      try {
        this.agent.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers: sent, body }, attempt);
      } catch (err) {
        attempt.onResponseError(null, err as Error);
      }
    });
  }

  /** Waits for the attempts under way, then closes every connection. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private target(url: string): Target {
    let target = this.targets.get(url);
    if (!target) {
      target = this.parseTarget(url);
      if (this.targets.size >= MAX_CACHED_TARGETS) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }

  private parseTarget(url: string): Target {
    const parsed = parseUrl(url);
    const refused = (errorClass: AttemptErrorClass, error: string, address: string | null = null): Target => ({ origin: '', path: '', refusal: { errorClass, error, address } });
    if (!parsed) return refused('refused_scheme', 'not a valid URL');
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return refused('refused_scheme', `${parsed.protocol} URLs are not delivered`);
    if (!this.allowPrivateTargets) {
      if (parsed.protocol === 'http:') return refused('refused_scheme', 'http URLs are refused: webhooks are delivered over https');
      // A literal address is refused here already; the connector would refuse it too.
      const host = hostOf(parsed);
      const label = isIP(host) ? nonPublicLabel(host) : null;
      if (label !== null) return refused('refused_address', `${host} is ${withArticle(label)}: refused`, host);
    }
    return { origin: parsed.origin, path: parsed.pathname + parsed.search, refusal: null };
  }
}

interface AttemptContext {
  timeoutMs: number;
  connector: GuardedConnector;
}

/** One attempt: undici's handler, the attempt's timer and its outcome. */
class Attempt implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private statusCode: number | null = null;
  private received = 0;
  private done = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly context: AttemptContext,
    private readonly origin: string,
    private readonly started: number,
    private readonly resolve: (outcome: AttemptOutcome) => void,
  ) {
    this.timer = setTimeout(onAttemptTimeout, context.timeoutMs, this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Timed out while waiting for a connection: do not send it late.
    if (this.done) controller.abort(new AttemptEndedError());
    else this.controller = controller;
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx informational: the real answer follows
    this.statusCode = statusCode;
    if (Number(headers['content-length']) > RESPONSE_BODY_LIMIT_BYTES) this.stopReading(controller);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.received += chunk.length;
    if (this.received > RESPONSE_BODY_LIMIT_BYTES) this.stopReading(controller);
  }

  onResponseEnd(): void {
    this.answered();
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, err: Error): void {
    if (this.done) return;
    const { errorClass, error } = classifyAttemptError(err, this.context.timeoutMs);
    const address = err instanceof AddressRefusedError ? err.address : errorClass === 'dns' ? null : (dialedAddress(err) ?? this.address());
    this.finish(false, errorClass, error, address);
  }

  timedOut(): void {
    if (this.done) return;
    this.finish(false, 'timeout', timeoutText(this.context.timeoutMs), this.address());
    this.controller?.abort(new AttemptEndedError());
  }

  /** Enough read: the outcome is the status; closing the connection is cheaper than draining a large body. */
  private stopReading(controller: Dispatcher.DispatchController): void {
    if (this.done) return;
    this.answered();
    controller.abort(new AttemptEndedError());
  }

  private answered(): void {
    if (this.done) return;
    const status = this.statusCode ?? 0;
    if (status >= 200 && status < 300) return this.finish(true, null, null, this.address());
    const error = status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
    this.finish(false, 'http_status', error, this.address());
  }

  private address(): string | null {
    return this.context.connector.addressOf(this.origin);
  }

  private finish(ok: boolean, errorClass: AttemptErrorClass | null, error: string | null, address: string | null): void {
    this.done = true;
    clearTimeout(this.timer);
    this.resolve({ ok, statusCode: this.statusCode, durationMs: elapsedMs(this.started), errorClass, error, address });
  }
}

/** The reason an attempt's request is aborted once its outcome is known; never reported. */
class AttemptEndedError extends Error {
  constructor() {
    super('webhook attempt ended');
    this.name = 'AttemptEndedError';
  }
}

function elapsedMs(started: number): number {
  return Math.round(performance.now() - started);
}

function onAttemptTimeout(attempt: Attempt): void {
  attempt.timedOut();
}
