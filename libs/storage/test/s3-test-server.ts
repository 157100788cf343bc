import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
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
 * s3rver checks a presigned URL's expiry but not its SigV4 signature ("V4 signatures have
 * incomplete support": lib/middleware/authentication.js accepts any), so a PUT with another
 * Content-Type than the signed one would pass. This server verifies the signature of every
 * query-signed request itself, as S3 and MinIO do, before handing it to s3rver: 403
 * SignatureDoesNotMatch otherwise. The verification is written from the SigV4 specification,
 * independently of the SDK that signs.
 */
export class S3TestServer {
  private constructor(
    private readonly server: Server,
    private readonly directory: string,
    readonly endpoint: string,
  ) {}

  static async start(buckets: string[]): Promise<S3TestServer> {
    const directory = await mkdtemp(path.join(tmpdir(), 'dc-s3rver-'));
    const s3rver = new S3rver({ silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
    await s3rver.configureBuckets();
    const handle = s3rver.callback();
    const server = createServer((req, res) => {
      if (new URL(req.url ?? '/', 'http://x').searchParams.has('X-Amz-Signature') && !presignedSignatureMatches(req, S3RVER_CREDENTIALS.secretAccessKey)) {
        return refuse(res);
      }
      handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new S3TestServer(server, directory, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    await rm(this.directory, { recursive: true, force: true });
  }
}

function refuse(res: ServerResponse): void {
  res.writeHead(403, { 'content-type': 'application/xml', connection: 'close' });
  res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>');
}

/** RFC 3986 unreserved characters stay, everything else is %XX (SigV4's UriEncode). */
function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** SigV4 query-string authentication (AWS "Authenticating Requests: Using Query Parameters"). */
function presignedSignatureMatches(req: IncomingMessage, secretAccessKey: string): boolean {
  const url = new URL(req.url ?? '/', 'http://x');
  const query = url.searchParams;
  const signature = query.get('X-Amz-Signature') ?? '';
  const credential = (query.get('X-Amz-Credential') ?? '').split('/');
  const amzDate = query.get('X-Amz-Date') ?? '';
  const signedHeaders = (query.get('X-Amz-SignedHeaders') ?? '').split(';');
  if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || credential.length !== 5 || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const [, date, region, service, terminator] = credential;

  const canonicalUri = url.pathname
    .split('/')
    .map((segment) => uriEncode(decodeURIComponent(segment)))
    .join('/');
  const canonicalQuery = [...query.entries()]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [uriEncode(name), uriEncode(value)])
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${String(req.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const payloadHash = query.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  const canonicalRequest = [req.method, canonicalUri, canonicalQuery, canonicalHeaders, signedHeaders.join(';'), payloadHash].join('\n');

  const scope = `${date}/${region}/${service}/${terminator}`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest, 'utf8').digest('hex')].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), terminator);
  return timingSafeEqual(hmac(signingKey, stringToSign), Buffer.from(signature, 'hex'));
}
