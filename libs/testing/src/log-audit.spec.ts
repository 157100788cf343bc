import { auditLogText } from './log-audit';
import { OPERATOR_TOKEN } from './stack';

describe('auditLogText', () => {
  const clean = [
    '{"level":30,"service":"gateway","requestId":"req_1","msg":"request completed","keyPrefix":"svc_live_Ab3d","statusCode":201}',
    '{"level":40,"service":"api-core","msg":"validation failed","issues":[{"path":"debtors[0].identityDocumentNumber","message":"must be a string"}]}',
    '{"level":30,"msg":"webhook registered","webhookId":"wh_01J","secretPrefix":"whsec_"}',
  ].join('\n');

  it('finds nothing in lines that name fields, prefixes and ids only', () => {
    expect(auditLogText('gateway.log', clean)).toEqual([]);
  });

  it('finds API keys, webhook secrets, bearer headers, documents, names and the operator token, with their line', () => {
    const key = `svc_live_${'A1b2C3d4E5'.repeat(4)}xyz`;
    const secret = `whsec_${'Q'.repeat(43)}`;
    const lines = [
      clean,
      `{"msg":"key created","key":"${key}"}`,
      `{"msg":"webhook","secret":"${secret}"}`,
      '{"req":{"headers":{"authorization":"Bearer abcdefghijklmnopqrstuvwxyz0123"}}}',
      '{"body":{"debtors":[{"identityDocumentNumber":"12345678Z"}]}}',
      '{"row":{"identity_last_name":"García"}}',
      `{"msg":"token ${OPERATOR_TOKEN}"}`,
    ].join('\n');
    expect(auditLogText('x.log', lines).map((f) => [f.line, f.kind])).toEqual([
      [4, 'API key'],
      [5, 'webhook secret'],
      [6, 'bearer credential'],
      [7, 'debtor document'],
      [8, 'debtor name'],
      [9, 'operator token'],
    ]);
    // The report shows a shortened value only.
    expect(auditLogText('x.log', lines)[0].excerpt).toBe('svc_li…(52 chars)');
  });
});
