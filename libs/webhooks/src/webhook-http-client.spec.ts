import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { LookupAll } from './address-lookup';
import { RESPONSE_BODY_LIMIT_BYTES, WebhookHttpClient } from './webhook-http-client';

/**
 * The sender against real local servers on 127.0.0.1. Strict clients are shown those servers
 * through names and literal addresses they must refuse; permissive ones (allowPrivateTargets, as in
 * development) must reach them.
 */

const FIXTURES = path.join(__dirname, '../test/fixtures');
/** Self-signed, CN and SAN hooks.test, valid until 2126 (openssl req -x509 -newkey ec … -days 36500). */
const CERT = readFileSync(path.join(FIXTURES, 'hooks-test.crt'));
const KEY = readFileSync(path.join(FIXTURES, 'hooks-test.key'));
const BODY = '{"id":"dlv_1","type":"payment.created","data":{}}';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  servername?: string | false | null;
}

interface TestServer {
  port: number;
  connections: number;
  requests: Seen[];
  close(): Promise<void>;
}

type Respond = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function serve(respond: Respond, tls = false): Promise<TestServer> {
  const state = { connections: 0, requests: [] as Seen[] };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        servername: (req.socket as TLSSocket).servername,
      });
      respond(req, res);
    });
  };
  const server = tls ? https.createServer({ cert: CERT, key: KEY }, handler) : http.createServer(handler);
  server.on(tls ? 'secureConnection' : 'connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return state.connections;
    },
    requests: state.requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A plain TCP listener that only counts connections: nothing may reach it. */
async function tcpTrap(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const answer =
  (status: number, headers: http.OutgoingHttpHeaders = {}, body = ''): Respond =>
  (_req, res) =>
    res.writeHead(status, headers).end(body);

const hostsLookup =
  (table: Record<string, string[]>): LookupAll =>
  async (hostname) => {
    if (table[hostname]) return table[hostname];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };

describe('WebhookHttpClient', () => {
  const TIMEOUT_MS = 400;
  let client: WebhookHttpClient;
  let server: TestServer | undefined;

  beforeEach(() => {
    client = new WebhookHttpClient({ timeoutMs: TIMEOUT_MS, allowPrivateTargets: true });
  });

  afterEach(async () => {
    await client.close();
    await server?.close();
    server = undefined;
  });

  it('posts the body as JSON with the given headers, and reports a 2xx with the address it connected to', async () => {
    server = await serve(answer(204));
    const outcome = await client.post(`http://127.0.0.1:${server.port}/hooks/in?x=1`, BODY, { 'x-service-event': 'payment.created' });
    expect(outcome).toEqual({ ok: true, statusCode: 204, durationMs: expect.any(Number), errorClass: null, error: null, address: '127.0.0.1' });
    expect(server.requests).toEqual([
      expect.objectContaining({
        method: 'POST',
        url: '/hooks/in?x=1',
        body: BODY,
        headers: expect.objectContaining({ 'content-type': 'application/json', 'x-service-event': 'payment.created', 'content-length': String(BODY.length), host: `127.0.0.1:${server.port}` }),
      }),
    ]);
  });

  it('keeps a content-type it is given', async () => {
    server = await serve(answer(200));
    await client.post(`http://127.0.0.1:${server.port}/`, BODY, { 'content-type': 'application/json; charset=utf-8' });
    expect(server.requests[0].headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it.each([302, 307])('does not follow a %i: an http_status failure, the Location never requested', async (status) => {
    server = await serve((req, res) => (req.url === '/in' ? res.writeHead(status, { location: '/elsewhere' }).end() : res.writeHead(200).end()));
    const outcome = await client.post(`http://127.0.0.1:${server.port}/in`, BODY, {});
    expect(outcome).toMatchObject({ ok: false, statusCode: status, errorClass: 'http_status', error: `HTTP ${status} (redirects are not followed)`, address: '127.0.0.1' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests.map((r) => r.url)).toEqual(['/in']);
  });

  it('reports any other status as an http_status failure', async () => {
    server = await serve(answer(500, {}, 'boom'));
    expect(await client.post(`http://127.0.0.1:${server.port}/`, BODY, {})).toMatchObject({ ok: false, statusCode: 500, errorClass: 'http_status', error: 'HTTP 500' });
  });

  it('ends an attempt whose receiver never answers at timeoutMs', async () => {
    server = await serve(() => undefined);
    const outcome = await client.post(`http://127.0.0.1:${server.port}/`, BODY, {});
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorClass: 'timeout', error: `no response within ${TIMEOUT_MS} ms`, address: '127.0.0.1' });
    expect(Number.isInteger(outcome.durationMs)).toBe(true);
    expect(outcome.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(outcome.durationMs).toBeLessThan(TIMEOUT_MS + 400);
  });

  it('counts the body in the timeout: a receiver that sends headers and then trickles times out', async () => {
    server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('.');
      const timer = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(timer));
    });
    const outcome = await client.post(`http://127.0.0.1:${server.port}/`, BODY, {});
    expect(outcome).toMatchObject({ ok: false, statusCode: 200, errorClass: 'timeout', error: `no response within ${TIMEOUT_MS} ms` });
    expect(outcome.durationMs).toBeLessThan(TIMEOUT_MS + 400);
  });

  it('counts the lookup in the timeout', async () => {
    const hanging = new WebhookHttpClient({ timeoutMs: 200, allowPrivateTargets: false, lookup: () => new Promise(() => undefined) });
    const outcome = await hanging.post('https://slow-dns.test/', BODY, {});
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorClass: 'timeout', error: 'no response within 200 ms', address: null });
    expect(outcome.durationMs).toBeLessThan(600);
    await hanging.close();
  });

  it('reports a refused connection as a connection failure', async () => {
    const port = await freePort();
    expect(await client.post(`http://127.0.0.1:${port}/`, BODY, {})).toMatchObject({
      ok: false,
      statusCode: null,
      errorClass: 'connection',
      error: 'connect ECONNREFUSED',
      address: '127.0.0.1',
    });
  });

  it('reports a name that does not resolve as a dns failure', async () => {
    const unresolved = new WebhookHttpClient({ timeoutMs: TIMEOUT_MS, allowPrivateTargets: false, lookup: hostsLookup({}) });
    expect(await unresolved.post('https://nowhere.test/', BODY, {})).toMatchObject({
      ok: false,
      errorClass: 'dns',
      error: 'dns lookup of nowhere.test failed (ENOTFOUND)',
      address: null,
    });
    await unresolved.close();
  });

  it('stops reading a huge response after 64 KiB and closes that connection', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let written = 0;
    let closed = false;
    server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }); // chunked: no length to refuse early
      res.on('close', () => (closed = true));
      const pump = () => {
        while (!closed && written < 512 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const outcome = await client.post(`http://127.0.0.1:${server.port}/`, BODY, {});
    expect(outcome).toMatchObject({ ok: true, statusCode: 200, errorClass: null });
    expect(outcome.durationMs).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(RESPONSE_BODY_LIMIT_BYTES).toBe(65536);
  });

  it('does not even start reading a response whose declared length is over the limit', async () => {
    server = await serve((_req, res) => {
      res.writeHead(503, { 'content-length': String(100 * 1024 * 1024) });
      res.write(Buffer.alloc(1024));
    });
    expect(await client.post(`http://127.0.0.1:${server.port}/`, BODY, {})).toMatchObject({ ok: false, statusCode: 503, errorClass: 'http_status', error: 'HTTP 503' });
  });

  it('keeps connections alive: 50 sequential posts use at most 2 connections', async () => {
    server = await serve(answer(200, {}, 'ok'));
    for (let i = 0; i < 50; i++) {
      const outcome = await client.post(`http://127.0.0.1:${server.port}/in`, BODY, {});
      expect(outcome).toMatchObject({ ok: true, address: '127.0.0.1' });
    }
    expect(server.requests).toHaveLength(50);
    expect(server.connections).toBeLessThanOrEqual(2);
  });

  it('connects to the address it checked, without a lookup per request, and keeps the Host header', async () => {
    server = await serve(answer(200));
    const lookup = jest.fn(hostsLookup({ 'hooks.test': ['127.0.0.1'] }));
    const named = new WebhookHttpClient({ timeoutMs: TIMEOUT_MS, allowPrivateTargets: true, lookup });
    for (let i = 0; i < 5; i++) {
      expect(await named.post(`http://hooks.test:${server.port}/in`, BODY, {})).toMatchObject({ ok: true, address: '127.0.0.1' });
    }
    // One lookup per new connection, none per request (undici may open a second connection when a
    // post follows the previous one within the same tick: it waits a tick before reusing a socket).
    expect(server.connections).toBeLessThanOrEqual(2);
    expect(lookup).toHaveBeenCalledTimes(server.connections);
    expect(server.requests[0].headers.host).toBe(`hooks.test:${server.port}`);
    await named.close();
  });

  it('tries the next address when one refuses the connection', async () => {
    server = await serve(answer(200));
    const port = server.port;
    // Another loopback address with nothing listening on the port: refused, then 127.0.0.1 answers.
    const named = new WebhookHttpClient({ timeoutMs: TIMEOUT_MS, allowPrivateTargets: true, lookup: hostsLookup({ 'hooks.test': ['127.0.0.2', '127.0.0.1'] }) });
    expect(await named.post(`http://hooks.test:${port}/`, BODY, {})).toMatchObject({ ok: true, address: '127.0.0.1' });
    await named.close();
  });

  it('never throws, whatever it is given', async () => {
    await expect(client.post('not a url', BODY, {})).resolves.toMatchObject({ ok: false, errorClass: 'refused_scheme', error: 'not a valid URL', address: null });
    await expect(client.post('ftp://127.0.0.1/', BODY, {})).resolves.toMatchObject({ ok: false, errorClass: 'refused_scheme', error: 'ftp: URLs are not delivered' });
    server = await serve(answer(200));
    await expect(client.post(`http://127.0.0.1:${server.port}/`, BODY, { 'x-bad': 'a\r\nb' })).resolves.toMatchObject({ ok: false, errorClass: 'connection' });
  });

  describe('over TLS', () => {
    const lookup = hostsLookup({ 'hooks.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });

    it('checks the certificate against the hostname and sends it as SNI while connecting to the checked address', async () => {
      server = await serve(answer(200), true);
      const trusting = new WebhookHttpClient({ timeoutMs: 2000, allowPrivateTargets: true, lookup, tls: { ca: CERT } });
      expect(await trusting.post(`https://hooks.test:${server.port}/in`, BODY, {})).toMatchObject({ ok: true, statusCode: 200, address: '127.0.0.1' });
      expect(server.requests[0]).toMatchObject({ servername: 'hooks.test', headers: expect.objectContaining({ host: `hooks.test:${server.port}` }) });
      const mismatch = await trusting.post(`https://other.test:${server.port}/in`, BODY, {});
      expect(mismatch).toMatchObject({ ok: false, errorClass: 'tls', address: '127.0.0.1' });
      expect(mismatch.error).toMatch(/^ERR_TLS_CERT_ALTNAME_INVALID: /);
      await trusting.close();
    });

    it('reports an untrusted certificate as a tls failure', async () => {
      server = await serve(answer(200), true);
      const plain = new WebhookHttpClient({ timeoutMs: 2000, allowPrivateTargets: true, lookup });
      expect(await plain.post(`https://hooks.test:${server.port}/in`, BODY, {})).toMatchObject({
        ok: false,
        statusCode: null,
        errorClass: 'tls',
        error: 'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate',
        address: '127.0.0.1',
      });
      expect(server.requests).toHaveLength(0);
      await plain.close();
    });
  });

  describe('with allowPrivateTargets false', () => {
    let trap: Awaited<ReturnType<typeof tcpTrap>>;
    let strict: WebhookHttpClient;

    beforeEach(async () => {
      trap = await tcpTrap();
      strict = new WebhookHttpClient({ timeoutMs: TIMEOUT_MS, allowPrivateTargets: false });
    });

    afterEach(async () => {
      await strict.close();
      await trap.close();
    });

    it('refuses http URLs', async () => {
      expect(await strict.post(`http://93.184.216.34/`, BODY, {})).toMatchObject({
        ok: false,
        statusCode: null,
        errorClass: 'refused_scheme',
        error: 'http URLs are refused: webhooks are delivered over https',
        address: null,
      });
    });

    it('refuses a literal non-public address without connecting', async () => {
      expect(await strict.post(`https://127.0.0.1:${trap.port}/`, BODY, {})).toMatchObject({
        ok: false,
        errorClass: 'refused_address',
        error: '127.0.0.1 is a loopback address: refused',
        address: '127.0.0.1',
      });
      expect(await strict.post(`https://[::ffff:127.0.0.1]:${trap.port}/`, BODY, {})).toMatchObject({ errorClass: 'refused_address', address: '::ffff:7f00:1' });
      expect(trap.connections()).toBe(0);
    });

    it('refuses a name that resolves to a loopback address (localhost, through the system resolver) without connecting', async () => {
      const outcome = await strict.post(`https://localhost:${trap.port}/`, BODY, {});
      expect(outcome).toMatchObject({ ok: false, statusCode: null, errorClass: 'refused_address' });
      expect(outcome.error).toMatch(/^localhost resolves to (127\.0\.0\.1|::1) \(loopback address\): refused$/);
      expect(outcome.address).toMatch(/^(127\.0\.0\.1|::1)$/);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(trap.connections()).toBe(0);
    });

    it('refuses a name when ANY of its addresses is private', async () => {
      const lookup = hostsLookup({ 'hooks.test': ['10.0.0.7'], 'mixed.test': ['93.184.216.34', '169.254.169.254'] });
      const injected = new WebhookHttpClient({ timeoutMs: TIMEOUT_MS, allowPrivateTargets: false, lookup });
      expect(await injected.post('https://hooks.test/in', BODY, {})).toMatchObject({
        ok: false,
        errorClass: 'refused_address',
        error: 'hooks.test resolves to 10.0.0.7 (private address): refused',
        address: '10.0.0.7',
      });
      expect(await injected.post('https://mixed.test/in', BODY, {})).toMatchObject({
        errorClass: 'refused_address',
        error: 'mixed.test resolves to 169.254.169.254 (cloud metadata address): refused',
        address: '169.254.169.254',
      });
      await injected.close();
    });

    it('resolves and checks again for every new connection', async () => {
      let answerWith = ['93.184.216.34', '10.0.0.9'];
      const lookup = jest.fn(async () => answerWith);
      const changing = new WebhookHttpClient({ timeoutMs: TIMEOUT_MS, allowPrivateTargets: false, lookup });
      expect(await changing.post(`https://changing.test:${trap.port}/`, BODY, {})).toMatchObject({ errorClass: 'refused_address', address: '10.0.0.9' });
      answerWith = ['::1'];
      expect(await changing.post(`https://changing.test:${trap.port}/`, BODY, {})).toMatchObject({
        errorClass: 'refused_address',
        error: 'changing.test resolves to ::1 (loopback address): refused',
        address: '::1',
      });
      expect(lookup).toHaveBeenCalledTimes(2);
      expect(trap.connections()).toBe(0);
      await changing.close();
    });
  });
});
