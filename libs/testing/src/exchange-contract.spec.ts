import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkRecordedRun, ExchangeContract, readExchanges, RecordedExchange, toTemplate } from './exchange-contract';
import { OpenApiContract } from './fuzz/openapi-contract';

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

/**
 * The committed document plus a CSV download, shaped as the generator documents an ApiDoc with
 * `media: {type: 'text/csv'}`: the same parameters, success headers and errors as GET
 * /v1/imports/{id}, a string body in text/csv and a required Content-Disposition.
 */
function withCsvRoute(): OpenApiContract {
  const document = structuredClone(OpenApiContract.load().document);
  const get = document.paths['/v1/imports/{id}'].get;
  document.paths['/v1/imports/{id}/rejected-rows'] = {
    get: {
      ...get,
      operationId: 'imports.rejectedRows',
      responses: {
        ...get.responses,
        '200': {
          description: 'The refused rows as a CSV file.',
          headers: { ...get.responses['200'].headers, 'Content-Disposition': { description: 'attachment', required: true, schema: { type: 'string' } } },
          content: { 'text/csv': { schema: { type: 'string' } } },
        },
      },
    },
  };
  return new OpenApiContract(document);
}

describe('ExchangeContract: a text/csv download', () => {
  const openapi = withCsvRoute();
  const csvContract = new ExchangeContract(openapi);
  const csvHeaders = {
    'x-request-id': 'req_1',
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': 'attachment; filename="imp_1-rejected-rows.csv"',
  };
  const download = (overrides: Partial<RecordedExchange>): RecordedExchange => ({
    method: 'GET',
    route: '/public/v1/imports/:id/rejected-rows',
    url: '/public/v1/imports/imp_1/rejected-rows',
    status: 200,
    headers: csvHeaders,
    body: null,
    requestBytes: 0,
    ...overrides,
  });
  const csvProblems = (e: RecordedExchange) => {
    const report = csvContract.check([e]);
    expect(report.checked).toBe(1);
    return report.mismatches.flatMap((m) => m.problems);
  };
  const envelope = JSON.stringify({ error: { code: 'not_found', message: 'no such import', requestId: 'req_1' } });

  it('records the media type of each status', () => {
    const op = openapi.operations.find((o) => o.id === 'imports.rejectedRows')!;
    expect(op.media.get('200')).toBe('text/csv');
    expect(op.media.get('404')).toBe('application/json');
    expect(op.responses.get('200')).toBeUndefined();
    expect(openapi.operations.find((o) => o.id === 'imports.get')!.media.get('200')).toBe('application/json');
  });

  it('passes a streamed 200 served as text/csv with its Content-Disposition', () => {
    expect(csvProblems(download({}))).toEqual([]);
  });

  it('passes a 200 whose CSV text was recorded, without reading it as JSON', () => {
    expect(csvProblems(download({ body: 'row,column,message\n2,phone,not E.164\n' }))).toEqual([]);
  });

  it('reports a streamed 200 served as application/json', () => {
    expect(csvProblems(download({ headers: { ...csvHeaders, 'content-type': 'application/json; charset=utf-8' } }))).toEqual([
      'content-type: text/csv answer served as "application/json; charset=utf-8"',
    ]);
    expect(csvProblems(download({ headers: { ...csvHeaders, 'content-type': 'text/csvx' } }))).toEqual(['content-type: text/csv answer served as "text/csvx"']);
  });

  it('still checks the headers of a streamed 200', () => {
    const without = (name: string) => Object.fromEntries(Object.entries(csvHeaders).filter(([k]) => k !== name));
    expect(csvProblems(download({ headers: without('content-disposition') }))).toEqual(['header: required Content-Disposition is missing']);
    expect(csvProblems(download({ headers: without('x-request-id') }))).toEqual(['x-request-id: no X-Request-Id header', 'header: required X-Request-Id is missing']);
  });

  it('reports a stream under a status not documented as a file', () => {
    expect(csvProblems(download({ status: 201 }))).toEqual(['the body was a stream: the recorder could not read it']);
  });

  it('keeps the JSON envelope for the errors of a CSV route', () => {
    expect(csvProblems(download({ status: 404, headers: { 'x-request-id': 'req_1', 'content-type': 'application/json; charset=utf-8' }, body: envelope }))).toEqual([]);
    expect(csvProblems(download({ status: 404, headers: { 'x-request-id': 'req_1', 'content-type': 'text/csv' }, body: 'a,b\n' }))).toEqual([
      expect.stringMatching(/^json: body is not JSON/),
    ]);
    expect(csvProblems(download({ status: 404, headers: { 'x-request-id': 'req_1', 'content-type': 'application/json' } }))).toEqual([
      'the body was a stream: the recorder could not read it',
    ]);
  });

  it('still reports a stream on a JSON route', () => {
    expect(csvProblems(download({ route: '/public/v1/imports/:id', url: '/public/v1/imports/imp_1', headers: { 'x-request-id': 'req_1', 'content-type': 'application/json' } }))).toEqual([
      'the body was a stream: the recorder could not read it',
    ]);
    expect(problemsOf(exchange({ body: null }))).toEqual(['the body was a stream: the recorder could not read it']);
  });

  it('accepts a CSV 200 in the fuzz check as long as its content type matches', () => {
    const op = openapi.operations.find((o) => o.id === 'imports.rejectedRows')!;
    const answer = (status: number, contentType: string, text: string) => ({ status, headers: { 'x-request-id': 'req_1', 'content-type': contentType }, text });
    expect(openapi.check(op, answer(200, 'text/csv; charset=utf-8', 'row,column,message\n'), 0)).toEqual([]);
    expect(openapi.check(op, answer(200, 'TEXT/CSV', ''), 0)).toEqual([]);
    expect(openapi.check(op, answer(200, 'application/json', '{"data":[]}'), 0)).toEqual([
      { rule: 'content-type', detail: 'text/csv answer served as "application/json"' },
    ]);
    expect(openapi.check(op, answer(404, 'application/json', envelope), 0)).toEqual([]);
    expect(openapi.check(op, answer(404, 'text/csv', 'a,b'), 0)).toEqual([{ rule: 'json', detail: 'body is not JSON: a,b' }]);
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
