import 'reflect-metadata';
import { DebtorBatchDto, DebtorListQueryDto } from '@dc/contracts';
import { enableCompiledValidation, queryParserFor, validCheckFor } from './valid-check';

describe('the compiled-validation switch', () => {
  it('answers no compiled check until the process turns it on, then the compiled ones', () => {
    expect(validCheckFor(DebtorBatchDto)).toBeUndefined();
    expect(queryParserFor(DebtorListQueryDto)).toBeUndefined();
    enableCompiledValidation();
    expect(validCheckFor(DebtorBatchDto)).toEqual(expect.any(Function));
    expect(queryParserFor(DebtorListQueryDto)).toEqual(expect.any(Function));
  });
});
