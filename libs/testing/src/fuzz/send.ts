import http from 'node:http';
import { Answer } from './openapi-contract';
import { FuzzRequest } from './requests';

export type Outcome = ({ answer: Answer } | { error: string }) & { bytes?: number };

/**
 * Sends one request as raw bytes (node:http: no client-side JSON handling, any header and body).
 * An answer that arrives while the body is still being written is kept: the write error that
 * follows when the server closes (EPIPE, ECONNRESET) is not the outcome then.
 */
export function send(baseUrl: string, request: FuzzRequest, agent: http.Agent, timeoutMs = 20_000): Promise<Outcome> {
  const body = request.body?.();
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, bytes: body?.length ?? 0 });
    };
    let req: http.ClientRequest;
    try {
      req = http.request(`${baseUrl}${request.path}`, {
        method: request.method,
        agent: request.abort ? false : agent,
        headers: { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      });
    } catch (err) {
      // Only a request the client library itself refuses (never the case for generated ones).
      resolve({ error: `client refused the request: ${(err as Error).message}` });
      return;
    }
    const timer = setTimeout(() => {
      done({ error: `no answer within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ answer: { status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') } }));
      res.on('error', (err) => done({ error: `response: ${err.message}` }));
    });
    req.on('error', (err) => done({ error: `${(err as NodeJS.ErrnoException).code ?? ''} ${err.message}`.trim() }));
    if (request.abort && body) {
      // Half the body, then hang up: the server must cope with the missing rest.
      req.write(body.subarray(0, Math.floor(body.length / 2)));
      setTimeout(() => {
        req.destroy();
        done({ error: 'aborted by the client' });
      }, 20);
      return;
    }
    req.end(body);
  });
}
