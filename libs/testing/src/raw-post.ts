import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Whether the body went on the wire before the server answered. */
  bodySent: boolean;
}

/**
 * POST for oversized bodies, free of the race a plain client has: a server refusing a body by its
 * Content-Length answers and closes the socket while the client is still uploading, and the
 * client's EPIPE can then destroy the socket before the already-received 413 is read.
 *
 * The headers go first; the body follows only if no answer came within `waitMs` (3 s; or, with
 * `expectContinue`, only once the server says 100 Continue), as curl does for large uploads.
 */
export function rawPost(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer,
  options: { expectContinue?: boolean; waitMs?: number } = {},
): Promise<RawResponse> {
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  return new Promise((resolve, reject) => {
    let bodySent = false;
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    const sendBody = () => {
      if (answered || bodySent) return;
      bodySent = true;
      req.end(payload);
    };
    const req = http.request(`${url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(payload.length),
        ...(options.expectContinue ? { expect: '100-continue' } : {}),
        ...headers,
      },
    });
    req.on('response', (res) => {
      answered = true;
      clearTimeout(timer);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined, bodySent });
        req.destroy();
      });
      res.on('error', reject);
    });
    req.on('error', (err) => (answered ? undefined : reject(err)));
    if (options.expectContinue) {
      req.on('continue', sendBody);
    } else {
      timer = setTimeout(sendBody, options.waitMs ?? 3000);
    }
    req.flushHeaders();
  });
}
