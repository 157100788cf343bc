import { ValidationError } from '@nestjs/common';
import { toIssues } from './validation.pipe';

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
