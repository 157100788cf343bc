import { ErrorCode, PROMISE_STATUSES } from '@dc/contracts';
import { assertPromiseMove, canMovePromise } from './promise-status';

describe('promise status moves', () => {
  it('a pending promise ends in any final status', () => {
    for (const to of ['fulfilled', 'partial', 'broken', 'cancelled'] as const) expect(canMovePromise('pending', to)).toBe(true);
    expect(canMovePromise('pending', 'pending')).toBe(false);
  });

  it.each(['fulfilled', 'partial', 'broken', 'cancelled'])('a %s promise never moves', (from) => {
    for (const to of PROMISE_STATUSES) {
      expect(canMovePromise(from, to)).toBe(false);
      expect(() => assertPromiseMove(from, to)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidStateTransition }));
    }
  });
});
