import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkRecordedRun, ExchangeContract, readExchanges, RecordedExchange, toTemplate } from './exchange-contract';

/** The contract check of the e2e run (docs/adr/0030) must be able to fail: each rule, against the committed document. */
const contract = ExchangeContract.load();

const debtor = {
  id: 'dbt_1', portfolioId: 'pf_1', externalId: 'ext-1', status: 'active', priority: 0,
  identityFirstName: 'Ana', identityLastName: null, identityDocumentType: 'dni', identityDocumentNumber: '1',
  identityEntityType: null, contactInfoContactName: null, contactInfoAddressStreet: null, contactInfoAddressCity: null,
  contactInfoAddressState: null, contactInfoAddressPostalCode: null, contactInfoAddressCountry: null,
  contactInfoPhoneNumbers: [{ phone: '+34600000000', primary: true, type: null, owner: 'holder', ownerSource: 'client', verification: { status: 'unverified', verified: false } }],
  contactInfoEmails: [], complianceOptOut: false, complianceConsentToCall: true, complianceConsentToWhatsapp: false,
  complianceConsentToEmail: false, complianceConsentToSms: false, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
};

function exchange(overrides: Partial<RecordedExchange> & { json?: unknown }): RecordedExchange {
  const { json, ...rest } = overrides;
  return {
    method: 'GET',
    route: '/public/v1/debtors',
    url: '/public/v1/debtors',
    status: 200,
    headers: { 'x-request-id': 'req_1', 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(json ?? { data: [debtor], pagination: { hasMore: false, limit: 50, nextCursor: null } }),
    requestBytes: 0,
    ...rest,
  };
}

const problemsOf = (e: RecordedExchange) => contract.check([e]).mismatches.flatMap((m) => m.problems);

describe('ExchangeContract', () => {
  it('passes an answer that matches its operation, with a comma list and a lenient limit', () => {
    const report = contract.check([exchange({ url: '/public/v1/debtors?status=active,settled&status=deceased&limit=500&portfolioId=pf_1' })]);
    expect(report).toEqual({ checked: 1, mismatches: [], skipped: new Map() });
  });

  it('reports a value outside a response enum, with the path of the field', () => {
    const bad = { ...debtor, status: 'archived' };
    expect(problemsOf(exchange({ json: { data: [bad], pagination: { hasMore: false, limit: 50, nextCursor: null } } }))).toEqual([
      expect.stringMatching(/^schema: \/data\/0\/status must be equal to one of the allowed values/),
    ]);
  });

  it('reports a timestamp that is not a date-time', () => {
    const bad = { ...debtor, createdAt: '2026-01-01 10:00' };
    expect(problemsOf(exchange({ json: { data: [bad], pagination: { hasMore: false, limit: 50, nextCursor: null } } }))).toEqual([
      expect.stringMatching(/^schema: \/data\/0\/createdAt must match format "date-time"/),
    ]);
  });

  it('reads batch results as a union by status: an accepted item has an id, a rejected one a reason', () => {
    const batch = (results: unknown[]) =>
      exchange({ method: 'POST', route: '/public/v1/portfolios/:id/debtors', url: '/public/v1/portfolios/pf_1/debtors', json: { data: { results, summary: { created: 1, received: 1, rejected: 0, updated: 0 } } } });
    const reason = { code: 'invalid_phone', message: 'not E.164', path: 'debtors[0].contactInfoPhoneNumbers[0].phone' };
    expect(problemsOf(batch([{ index: 0, externalId: 'a', status: 'created', id: 'dbt_1', debts: [] }]))).toEqual([]);
    expect(problemsOf(batch([{ index: 0, externalId: 'a', status: 'rejected', id: null, debts: [], reason }]))).toEqual([]);
    expect(problemsOf(batch([{ index: 0, externalId: 'a', status: 'created', id: null, debts: [] }]))).toEqual([expect.stringMatching(/^schema: .*\/data\/results\/0\/id must be string/)]);
    expect(problemsOf(batch([{ index: 0, externalId: 'a', status: 'rejected', id: null, debts: [] }]))).toEqual([expect.stringMatching(/must have required property 'reason'/)]);
  });

  it('reports a missing required header and an undocumented status', () => {
    expect(problemsOf(exchange({ headers: { 'content-type': 'application/json' } }))).toEqual(
      expect.arrayContaining(['x-request-id: no X-Request-Id header', 'header: required X-Request-Id is missing']),
    );
    expect(problemsOf(exchange({ status: 201 }))).toEqual([expect.stringMatching(/^status: 201 is not documented for debtors\.list/)]);
  });

  it('reports a 429 without Retry-After', () => {
    const body = { error: { code: 'rate_limited', message: 'slow down', requestId: 'req_1' } };
    expect(problemsOf(exchange({ status: 429, json: body }))).toEqual(
      expect.arrayContaining(['retry-after: 429 without Retry-After', 'header: required Retry-After is missing']),
    );
    expect(problemsOf(exchange({ status: 429, json: body, headers: { 'x-request-id': 'req_1', 'content-type': 'application/json', 'retry-after': '12' } }))).toEqual([]);
  });

  it('reports a query the API accepted although the document refuses it', () => {
    expect(problemsOf(exchange({ url: '/public/v1/debtors?status=active,gone' }))).toEqual([
      expect.stringMatching(/^query: status="active,gone" \/1 must be equal to one of the allowed values/),
    ]);
    expect(problemsOf(exchange({ route: '/public/v1/debts', url: '/public/v1/debts?status=active&status=paid', json: { data: [], pagination: { hasMore: false, limit: 50, nextCursor: null } } }))).toEqual([
      'query: status repeated, but the document takes one value',
    ]);
  });

  it('does not check the query of a refused request', () => {
    const body = { error: { code: 'validation_error', message: 'bad status', requestId: 'req_1' } };
    expect(problemsOf(exchange({ url: '/public/v1/debtors?status=gone', status: 400, json: body }))).toEqual([]);
  });

  it('counts the exchanges it cannot check, by reason, instead of dropping them', () => {
    const report = contract.check([
      exchange({ route: null, url: '/public/v1/nowhere', status: 404 }),
      exchange({ route: '/public/v1/_test/policy-probe/:id', url: '/public/v1/_test/policy-probe/x' }),
      exchange({ method: 'GET', route: '/docs', url: '/docs' }),
      exchange({ route: null, url: '/public/v1/nowhere/else', status: 404 }),
    ]);
    expect(report.checked).toBe(0);
    expect([...report.skipped.entries()]).toEqual([
      ['no route matched (answered by the router)', 2],
      ['test-only route GET /public/v1/_test/policy-probe/:id', 1],
      ['route not in the document: GET /docs', 1],
    ]);
  });

  it('maps Fastify route templates to the document\'s', () => {
    expect(toTemplate('/public/v1/portfolios/:id/imports/upload-url')).toBe('/v1/portfolios/{id}/imports/upload-url');
  });
});

describe('readExchanges', () => {
  it('reads every exchanges-*.jsonl of the run and counts a torn line instead of failing', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'exchanges-'));
    try {
      await writeFile(path.join(dir, 'exchanges-1.jsonl'), `${JSON.stringify(exchange({}))}\n{"method":"GET","rou`);
      await writeFile(path.join(dir, 'gateway-1.log'), 'not an exchange\n');
      const recorded = (await readExchanges(dir))!;
      expect(recorded.exchanges).toHaveLength(1);
      expect(recorded.unreadable).toBe(1);
      const report = checkRecordedRun(contract, recorded);
      expect(report.checked).toBe(1);
      expect([...report.skipped.entries()]).toEqual([['unreadable record (a gateway killed mid-write)', 1]]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
