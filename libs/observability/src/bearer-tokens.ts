import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerOf(authorization: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return match?.[1];
}

/**
 * A set of accepted bearer tokens (for `/metrics`: METRICS_TOKEN and the operator token), compared
 * in constant time: every candidate is checked, over digests of equal length.
 */
export class BearerTokens {
  private readonly digests: Buffer[];

  constructor(tokens: readonly string[]) {
    this.digests = tokens.filter((t) => t.length > 0).map(digest);
  }

  accepts(authorization: string | undefined): boolean {
    const token = bearerOf(authorization);
    if (token === undefined) return false;
    const given = digest(token);
    let ok = false;
    for (const expected of this.digests) ok = timingSafeEqual(given, expected) || ok;
    return ok;
  }
}

/** The body of a refused `/metrics` request: the API's error envelope. */
export const METRICS_UNAUTHORIZED_BODY = {
  error: { code: 'unauthorized', message: 'Missing or wrong token: send Authorization: Bearer <METRICS_TOKEN or OPERATOR_TOKEN>.' },
};
