import { ValidationError } from '@nestjs/common';
import { AppError, DebtorBatchDto, ListQueryDto } from '@dc/contracts';
import { enableCompiledValidation } from '@dc/validation';
import { createValidationPipe, toIssues } from './validation.pipe';

// As the gateway runs (runtime-patches.ts): these tests pin what the compiled checks pass on.
enableCompiledValidation();

function node(property: string, constraints?: Record<string, string>, children: ValidationError[] = []): ValidationError {
  return { property, constraints, children } as ValidationError;
}

describe('toIssues', () => {
  it('builds dotted paths with array indexes', () => {
    const tree = [node('debtors', undefined, [node('3', undefined, [node('debts', undefined, [node('0', undefined, [node('currency', { matches: 'currency must match /^[A-Z]{3}$/' })])])])])];
    expect(toIssues(tree)).toEqual([
      { message: 'debtors[3].debts[0].currency must match /^[A-Z]{3}$/', path: 'debtors[3].debts[0].currency' },
    ]);
  });

  it('keeps every constraint of a property', () => {
    expect(toIssues([node('limit', { a: 'limit is bad', b: 'limit is worse' })])).toEqual([
      { message: 'limit is bad', path: 'limit' },
      { message: 'limit is worse', path: 'limit' },
    ]);
  });
});

describe('createValidationPipe', () => {
  const pipe = createValidationPipe();
  const asBody = { type: 'body', metatype: DebtorBatchDto, data: '' } as const;
  const debtor = { externalId: 'e-1', identityFirstName: 'Ana', identityDocumentType: 'national_id', identityDocumentNumber: 'X1', debts: [{ externalId: 'd-1', totalAmount: 10, currency: 'EUR' }] };

  it('passes a valid body on as it was parsed (no class-transformer copy)', async () => {
    const body = { debtors: [debtor] };
    await expect(pipe.transform(body, asBody)).resolves.toBe(body);
  });

  it('answers an invalid body with every issue, as class-validator names them', async () => {
    const body = { debtors: [{ ...debtor, debts: [{ externalId: 'd-1', totalAmount: -1, currency: 'eur' }], nickname: 'x' }] };
    const error = await pipe.transform(body, asBody).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).issues).toEqual([
      { message: 'property debtors[0].nickname should not exist', path: 'debtors[0].nickname' },
      { message: 'debtors[0].debts[0].totalAmount must be greater than 0', path: 'debtors[0].debts[0].totalAmount' },
      { message: 'debtors[0].debts[0].currency must be three capital letters (ISO 4217)', path: 'debtors[0].debts[0].currency' },
    ]);
  });

  it('validates a missing body as an empty object', async () => {
    const error = await pipe.transform(undefined, asBody).catch((e: unknown) => e);
    expect((error as AppError).issues).toEqual([{ message: expect.stringMatching(/^debtors /), path: 'debtors' }]);
  });

  it('converts query values as their DTOs say (limit to a number)', async () => {
    await expect(pipe.transform({ limit: '5' }, { type: 'query', metatype: ListQueryDto, data: '' })).resolves.toEqual(expect.objectContaining({ limit: 5 }));
  });
});
