import { AppError, ErrorCode, PromiseStatus } from '@dc/contracts';

/** Spec: Promise status. Only a pending promise moves, and only once; every other status is final. */
const MOVES: Record<PromiseStatus, readonly PromiseStatus[]> = {
  pending: ['fulfilled', 'partial', 'broken', 'cancelled'],
  fulfilled: [],
  partial: [],
  broken: [],
  cancelled: [],
};

export function canMovePromise(from: string, to: PromiseStatus): boolean {
  return (MOVES[from as PromiseStatus] ?? []).includes(to);
}

export function assertPromiseMove(from: string, to: PromiseStatus): void {
  if (!canMovePromise(from, to)) {
    throw new AppError(ErrorCode.InvalidStateTransition, `The promise is ${from}; only a pending promise can become ${to}.`);
  }
}
