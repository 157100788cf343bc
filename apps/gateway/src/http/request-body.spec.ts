import { AppError, ErrorCode } from '@dc/contracts';
import { bodyErrorOf, nulCharacterError, nulCharacterPaths, rejectedBody } from './request-body';

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

describe('nulCharacterPaths', () => {
  it('names each string or key holding U+0000 with the API path syntax', () => {
    const body = { debtors: [{ externalId: 'a' }, { externalId: 'b', debts: [{ description: 'x\u0000y' }] }], ['k\u0000']: 1 };
    expect(nulCharacterPaths(body)).toEqual(['debtors[1].debts[0].description', 'k\u0000']);
    expect(nulCharacterPaths({ debtorId: '\u0000' })).toEqual(['debtorId']);
    expect(nulCharacterPaths('\u0000', 'cursor')).toEqual(['cursor']);
    expect(nulCharacterPaths({ a: 'fine', b: [1, null, true, 'ok'] })).toEqual([]);
  });

  it('stops at 20 paths', () => {
    expect(nulCharacterPaths(Array.from({ length: 50 }, () => '\u0000'), 'list')).toHaveLength(20);
  });

  it('makes a validation_error with one issue per path', () => {
    const error = nulCharacterError(['a', 'b[0]']);
    expect(error.code).toBe(ErrorCode.ValidationError);
    expect(error.issues).toEqual([
      { message: 'a contains a NUL character (\\u0000), which text fields cannot hold', path: 'a' },
      { message: 'b[0] contains a NUL character (\\u0000), which text fields cannot hold', path: 'b[0]' },
    ]);
  });
});
