import { OPERATOR_TOKEN } from './stack';

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Calls the operator API (the way keys, portfolios and platform data enter the system). */
export class OperatorClient {
  constructor(private readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, body?: unknown): Promise<JsonResponse<T>> {
    const response = await fetch(`${this.baseUrl}/operator/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${OPERATOR_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as T) : (undefined as T) };
  }

  /** Like `request`, but fails the test with the response when the status is not the expected one. */
  async expect<T = any>(status: number, method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request<T>(method, path, body);
    if (response.status !== status) {
      throw new Error(`${method} ${path}: expected ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
    }
    return response.body;
  }
}

export interface Tenant {
  organizationId: string;
  portfolioIds: string[];
  /** Plaintext API key with read and write scopes. */
  key: string;
  /** Plaintext API key with read scope only. */
  readKey: string;
}

/** An organization with `portfolios` active portfolios and two keys (read+write, read-only). */
export async function createTenant(
  operator: OperatorClient,
  options: { portfolios?: number; sandbox?: boolean; name?: string; currencies?: string[] } = {},
): Promise<Tenant> {
  const org = await operator.expect(201, 'POST', '/organizations', { name: options.name ?? 'Acme Collections', sandbox: options.sandbox ?? false });
  const organizationId: string = org.data.id;
  const portfolioIds: string[] = [];
  for (let i = 0; i < (options.portfolios ?? 1); i += 1) {
    const pf = await operator.expect(201, 'POST', `/organizations/${organizationId}/portfolios`, {
      identityName: `Portfolio ${i + 1}`,
      identityCurrency: options.currencies ?? ['EUR'],
    });
    portfolioIds.push(pf.data.id);
  }
  const key = await operator.expect(201, 'POST', `/organizations/${organizationId}/api-keys`, { name: 'rw', scopes: ['read', 'write'] });
  const readKey = await operator.expect(201, 'POST', `/organizations/${organizationId}/api-keys`, { name: 'ro' });
  return { organizationId, portfolioIds, key: key.data.key, readKey: readKey.data.key };
}
