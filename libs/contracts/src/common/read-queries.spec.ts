import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ListCallsQueryDto } from '../calls/call.dto';
import { DebtListQueryDto } from '../debts/debt.dto';
import { encodeCursor } from '../pagination';
import { DebtorListQueryDto } from '../debtors/debtor.dto';
import { parseCommaList } from './query-fields';

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

describe('list queries are decoded at the edge', () => {
  it('turns the cursor into the id the page starts after', () => {
    const id = 'dbt_01HZX3V6Q8R2M4N5P7S9T1W3Y5';
    expect(check(DebtorListQueryDto, { cursor: encodeCursor(id) })).toMatchObject({ dto: { cursor: id }, messages: [] });
  });

  it.each(['bm90LWEtY3Vyc29y', 'dbt_01HZX3V6Q8R2M4N5P7S9T1W3Y5', 'x'.repeat(201), ['a', 'b']])('refuses the cursor %j we did not issue', (cursor) => {
    expect(check(DebtorListQueryDto, { cursor }).messages).toEqual(['cursor is not valid']);
  });

  it('turns from/to into the instants they stand for', () => {
    expect(check(ListCallsQueryDto, { from: '2026-03-01', to: '2026-03-01T10:00:00+02:00' })).toMatchObject({
      dto: { from: '2026-03-01T00:00:00.000Z', to: '2026-03-01T08:00:00.000Z' },
      messages: [],
    });
    expect(check(ListCallsQueryDto, { to: '2026-03-01' }).dto.to).toBe('2026-03-01T23:59:59.999Z');
    expect(check(ListCallsQueryDto, { from: '2026-02-30' }).messages).toEqual([
      'from must be an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDThh:mm:ssZ)',
    ]);
  });

  it('checks id filters and status lists the same way on every list', () => {
    expect(check(ListCallsQueryDto, { campaignId: ['a', 'b'] }).messages).toEqual(['campaignId must be a single id']);
    expect(check(ListCallsQueryDto, { status: 'completed,lost' }).messages).toEqual([
      'status must be one or more of: queued, ringing, in_progress, completed, no_answer, busy, failed, cancelled (comma-separated)',
    ]);
  });
});
