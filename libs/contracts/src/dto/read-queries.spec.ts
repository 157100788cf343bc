import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DebtListQueryDto } from './debt.dto';
import { DebtorListQueryDto, parseCommaList } from './debtor.dto';

function check<T extends object>(cls: new () => T, query: Record<string, unknown>) {
  const dto = plainToInstance(cls, query);
  const errors = validateSync(dto, { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true });
  return { dto, messages: errors.flatMap((e) => Object.values(e.constraints ?? {})) };
}

describe('parseCommaList', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['  ', undefined],
    ['active', ['active']],
    ['active, settled', ['active', 'settled']],
    [['active', 'settled,deceased'], ['active', 'settled', 'deceased']],
    ['active,', ['active', '']],
  ])('%j → %j', (input, expected) => {
    expect(parseCommaList(input)).toEqual(expected);
  });
});

describe('DebtorListQueryDto', () => {
  it('takes one or several statuses', () => {
    expect(check(DebtorListQueryDto, { status: 'settled,deceased' })).toMatchObject({ dto: { status: ['settled', 'deceased'], limit: 50 }, messages: [] });
  });

  it('names the parameter and the allowed values for an unknown status', () => {
    expect(check(DebtorListQueryDto, { status: 'active,paid' }).messages).toEqual([
      'status must be one or more of: active, in_collection, settled, unreachable, deceased (comma-separated)',
    ]);
  });

  it('accepts any single string as portfolioId but not a repeated one', () => {
    expect(check(DebtorListQueryDto, { portfolioId: 'whatever' }).messages).toEqual([]);
    expect(check(DebtorListQueryDto, { portfolioId: ['a', 'b'] }).messages).toEqual(['portfolioId must be a single id']);
  });
});

describe('DebtListQueryDto', () => {
  it('takes one status', () => {
    expect(check(DebtListQueryDto, { status: 'paid', debtorId: 'dbt_x' })).toMatchObject({ dto: { status: 'paid', debtorId: 'dbt_x' }, messages: [] });
  });

  it.each(['active,paid', 'settled', ['active', 'paid']])('refuses %j naming the allowed values', (status) => {
    expect(check(DebtListQueryDto, { status }).messages).toEqual(['status must be one of: active, paid, cancelled (a single value, not a list)']);
  });
});
