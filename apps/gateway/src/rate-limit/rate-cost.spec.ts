import type { FastifyRequest } from 'fastify';
import { batchCost, batchCostOf } from './rate-cost';

describe('batchCost', () => {
  it.each([
    [0, 1],
    [1, 1],
    [20, 1],
    [50, 1],
    [51, 2],
    [100, 2],
    [101, 3],
    [500, 10],
  ])('%i debtors cost %i units', (items, cost) => {
    expect(batchCost(items)).toBe(cost);
  });
});

describe('batchCostOf', () => {
  const cost = batchCostOf('debtors', 500);
  const request = (body: unknown) => ({ body }) as FastifyRequest;

  it('charges by the length of the list, a batch over the maximum as a full batch, anything else 1', () => {
    expect(cost(request({ debtors: new Array(51) }))).toBe(2);
    expect(cost(request({ debtors: new Array(16_000) }))).toBe(10);
    expect(cost(request({ debtors: 'not a list' }))).toBe(1);
    expect(cost(request(undefined))).toBe(1);
  });
});
