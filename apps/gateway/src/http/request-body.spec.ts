import { AppError, ErrorCode } from '@dc/contracts';
import { bodyErrorOf, MAX_BODY_DEPTH, nestingExceeds, parseJsonBody, rejectedBody, unstorableTextError, unstorableTextPaths } from './request-body';

describe('request body markers', () => {
  it('carries the error of a rejected body, invisible to JSON (idempotency fingerprints)', () => {
    const error = AppError.validation('The request body is not valid JSON.');
    const body = rejectedBody(error);
    expect(bodyErrorOf(body)).toBe(error);
    expect(JSON.stringify(body)).toBe('{}');
    expect(bodyErrorOf({ debtors: [] })).toBeUndefined();
    expect(bodyErrorOf(undefined)).toBeUndefined();
    expect(bodyErrorOf('text')).toBeUndefined();
  });
});

describe('parseJsonBody', () => {
  const refusal = (body: string | Buffer) => bodyErrorOf(parseJsonBody(Buffer.isBuffer(body) ? body : Buffer.from(body)))?.message;

  it('parses JSON', () => {
    expect(parseJsonBody(Buffer.from('{"a":[1,{"b":"c"}]}'))).toEqual({ a: [1, { b: 'c' }] });
  });

  it('refuses malformed JSON, invalid UTF-8 and nesting over the limit, without throwing', () => {
    expect(refusal('{"name":')).toBe('The request body is not valid JSON.');
    expect(refusal(Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]))).toBe('The request body is not valid UTF-8.');
    const deep = (n: number) => '['.repeat(n) + '"\\u0000"' + ']'.repeat(n);
    expect(refusal(deep(20_000))).toBe('The request body nests arrays and objects deeper than 64 levels.');
    expect(refusal('{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000))).toBe('The request body nests arrays and objects deeper than 64 levels.');
    // At the limit: parsed, and the NUL inside is found.
    expect(refusal(deep(MAX_BODY_DEPTH - 1))).toBe(`body${'[0]'.repeat(MAX_BODY_DEPTH - 1)} contains a NUL character (\\u0000), which text fields cannot hold`);
  });

  it('refuses a lone surrogate but accepts a well-formed pair', () => {
    expect(refusal('{"name":"a\\ud800b"}')).toBe('name contains an unpaired UTF-16 surrogate (such as \\ud800), which is not valid Unicode text');
    expect(parseJsonBody(Buffer.from('{"name":"\\ud83d\\ude00"}'))).toEqual({ name: '😀' });
  });
});

describe('nestingExceeds', () => {
  it('counts brackets outside strings only, escapes included', () => {
    expect(nestingExceeds('[[[]]]', 3)).toBe(false);
    expect(nestingExceeds('[[[[]]]]', 3)).toBe(true);
    expect(nestingExceeds('["[[[[[", "\\"[[[["]', 1)).toBe(false);
    expect(nestingExceeds('{"a\\\\":[[]]}', 2)).toBe(true);
  });
});

describe('unstorableTextPaths', () => {
  const paths = (value: unknown, path?: string) => unstorableTextPaths(value, path).map((p) => p.path);

  it('names each string or key holding U+0000 with the API path syntax', () => {
    const body = { debtors: [{ externalId: 'a' }, { externalId: 'b', debts: [{ description: 'x\u0000y' }] }], ['k\u0000']: 1 };
    expect(paths(body)).toEqual(['debtors[1].debts[0].description', 'k\u0000']);
    expect(paths({ debtorId: '\u0000' })).toEqual(['debtorId']);
    expect(paths('\u0000', 'cursor')).toEqual(['cursor']);
    expect(paths({ a: 'fine', b: [1, null, true, 'ok'] })).toEqual([]);
    expect(unstorableTextPaths({ a: '\ud800', b: '\udfff\u0000' })).toEqual([
      { path: 'a', problem: 'surrogate' },
      { path: 'b', problem: 'nul' },
    ]);
  });

  it('stops at 20 paths', () => {
    expect(unstorableTextPaths(Array.from({ length: 50 }, () => '\u0000'), 'list')).toHaveLength(20);
  });

  it('walks any depth without recursion', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(unstorableTextPaths(deep)).toHaveLength(1);
  });

  it('makes a validation_error with one issue per path', () => {
    const error = unstorableTextError([
      { path: 'a', problem: 'nul' },
      { path: 'b[0]', problem: 'nul' },
    ]);
    expect(error.code).toBe(ErrorCode.ValidationError);
    expect(error.issues).toEqual([
      { message: 'a contains a NUL character (\\u0000), which text fields cannot hold', path: 'a' },
      { message: 'b[0] contains a NUL character (\\u0000), which text fields cannot hold', path: 'b[0]' },
    ]);
  });
});
