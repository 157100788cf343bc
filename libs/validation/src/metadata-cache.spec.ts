import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsInt, IsString, registerDecorator, validateSync, ValidateNested } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { cacheValidationMetadata } from './metadata-cache';
import { DebtorBatchDto } from '@dc/contracts';

class Item {
  @IsString() name!: string;
}
class Base {
  @IsInt() n!: number;
}
class Holder extends Base {
  @ValidateNested({ each: true }) @Type(() => Item) items!: Item[];
}

const errorsOf = (cls: new () => object, plain: object) =>
  JSON.stringify(validateSync(plainToInstance(cls, plain), { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true }));

describe('cacheValidationMetadata', () => {
  const samples: [new () => object, object][] = [
    [Holder, { n: 1, items: [{ name: 'a' }, { name: 2 }] }],
    [Holder, { n: 'x', items: [{ name: 'a', extra: true }] }],
    [Item, { name: 'ok' }],
    [DebtorBatchDto, { debtors: [{ externalId: 'e', identityFirstName: 1, debts: [{ externalId: 'd', totalAmount: 'x', currency: 'EURO' }] }] }],
  ];

  it('gives exactly the errors of the uncached lookups, inherited rules included', () => {
    const before = samples.map(([cls, plain]) => errorsOf(cls, plain));
    cacheValidationMetadata();
    cacheValidationMetadata(); // idempotent
    expect(samples.map(([cls, plain]) => errorsOf(cls, plain))).toEqual(before);
    expect(before[0]).toContain('name must be a string');
    expect(before[1]).toContain('n must be an integer number');
  });

  it('sees a rule registered after a lookup was cached', () => {
    cacheValidationMetadata();
    expect(errorsOf(Item, { name: 'x' })).toBe('[]');
    registerDecorator({
      target: Item,
      propertyName: 'name',
      constraints: [],
      options: { message: 'name must not be x' },
      validator: { validate: (value: unknown) => value !== 'x' },
    });
    expect(errorsOf(Item, { name: 'x' })).toContain('name must not be x');
  });
});
