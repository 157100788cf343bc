import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, IncomingMessage, request, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

/** s3rver's built-in account. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * An S3-compatible server for the S3 driver's tests (MinIO cannot be installed here): s3rver
 * in-process on a free port, with its data in a temporary directory.
 *
 * s3rver checks neither SigV4 signatures ("V4 signatures have incomplete support": its
 * authentication middleware accepts any) nor a POST upload's policy: it would store a file of any
 * size, type or key. This server checks a form POST itself, as S3 and MinIO do, before handing it to
 * s3rver: its signature, expiry and every condition of its policy (exact fields, prefixes,
 * content-length-range), answering S3's errors (403 SignatureDoesNotMatch / AccessDenied, 400
 * EntityTooLarge). The checks are written from the S3 documentation, independently of the SDK that signs.
 */
export class S3TestServer {
  private constructor(
    private readonly servers: Server[],
    private readonly directory: string,
    readonly endpoint: string,
  ) {}

  static async start(buckets: string[]): Promise<S3TestServer> {
    const directory = await mkdtemp(path.join(tmpdir(), 'dc-s3rver-'));
    const s3rver = new S3rver({ silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
    await s3rver.configureBuckets();
    const handle = s3rver.callback();
    // A checked POST's body has been read: it reaches s3rver again through this listener.
    const inner = createServer(handle);
    await listen(inner);
    const server = createServer((req, res) => {
      if (req.method === 'POST' && /^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
        void checkedPost(req, res, (inner.address() as AddressInfo).port).catch((err: Error) => res.destroy(err));
        return;
      }
      handle(req, res);
    });
    await listen(server);
    return new S3TestServer([server, inner], directory, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  async stop(): Promise<void> {
    for (const server of this.servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await rm(this.directory, { recursive: true, force: true });
  }
}

function listen(server: Server): Promise<void> {
  return new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}

function refuse(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/xml', connection: 'close' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

/** Reads a form POST, checks its policy, and forwards it unchanged to s3rver or answers S3's error. */
async function checkedPost(req: IncomingMessage, res: ServerResponse, innerPort: number): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const form = await new Response(body, { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
  const bucket = new URL(req.url ?? '/', 'http://x').pathname.split('/')[1];
  const refusal = postPolicyRefusal(form, bucket, S3RVER_CREDENTIALS.secretAccessKey);
  if (refusal) return refuse(res, ...refusal);
  const forwarded = request({ port: innerPort, host: '127.0.0.1', method: 'POST', path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  forwarded.on('error', (err) => res.destroy(err));
  forwarded.end(body);
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** Form fields S3 leaves out of the policy's conditions. */
const UNCONDITIONED = new Set(['file', 'policy', 'x-amz-signature']);

/**
 * S3's POST policy ("Browser-based uploads using POST", SigV4): the signature is the HMAC of the
 * base64 policy with the credential's signing key; the policy must not have expired; every form
 * field but the unconditioned ones must match a condition (names case-insensitive), and each
 * condition must hold. Answers [status, code, message] of the refusal, or null.
 */
function postPolicyRefusal(form: FormData, bucket: string, secretAccessKey: string): [number, string, string] | null {
  const text = (name: string) => {
    for (const [key, value] of form.entries()) if (key.toLowerCase() === name.toLowerCase() && typeof value === 'string') return value;
    return undefined;
  };
  const policy = text('Policy') ?? '';
  const signature = text('X-Amz-Signature') ?? '';
  const [, date, region, service, terminator] = (text('X-Amz-Credential') ?? '').split('/');
  if (!policy || text('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || !/^[0-9a-f]{64}$/.test(signature) || !terminator) {
    return [403, 'AccessDenied', 'Policy and a SigV4 signature are required.'];
  }
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), terminator);
  if (!timingSafeEqual(hmac(signingKey, policy), Buffer.from(signature, 'hex'))) {
    return [403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'];
  }
  const { expiration, conditions } = JSON.parse(Buffer.from(policy, 'base64').toString('utf8')) as { expiration: string; conditions: unknown[] };
  if (!(Date.parse(expiration) > Date.now())) return [403, 'AccessDenied', 'Invalid according to Policy: Policy expired.'];

  const file = form.get('file');
  const size = file instanceof Blob ? file.size : -1;
  const value = (name: string) => (name === 'bucket' ? bucket : text(name));
  const conditioned = new Set<string>();
  for (const condition of conditions) {
    if (Array.isArray(condition) && condition[0] === 'content-length-range') {
      const [, min, max] = condition as [string, number, number];
      if (size > max) return [400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size'];
      if (size < min) return [400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size'];
      continue;
    }
    const [op, field, expected] = Array.isArray(condition) ? condition : ['eq', `$${Object.keys(condition as object)[0]}`, Object.values(condition as object)[0]];
    const name = String(field).replace(/^\$/, '').toLowerCase();
    conditioned.add(name);
    const actual = value(name) ?? '';
    const holds = op === 'eq' ? actual === expected : op === 'starts-with' ? actual.startsWith(String(expected)) : false;
    if (!holds) return [403, 'AccessDenied', `Invalid according to Policy: Policy Condition failed: ${JSON.stringify(condition)}`];
  }
  for (const name of form.keys()) {
    const lower = name.toLowerCase();
    if (!UNCONDITIONED.has(lower) && !lower.startsWith('x-ignore-') && !conditioned.has(lower)) {
      return [403, 'AccessDenied', `Invalid according to Policy: Extra input fields: ${name}`];
    }
  }
  return null;
}
