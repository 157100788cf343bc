import { AppError, CallStatus, ErrorCode, FINAL_CALL_STATUSES } from '@dc/contracts';

/**
 * A call's status moves freely while it is live (queued, ringing, in_progress); once final
 * (completed, no_answer, busy, failed, cancelled) it never changes. Re-sending the same status is
 * not a change. So a call reaches `completed` at most once and call.completed is emitted once.
 */
export function canChangeCallStatus(from: string, to: CallStatus): boolean {
  return from === to || !FINAL_CALL_STATUSES.includes(from as CallStatus);
}

export function assertCallStatusChange(from: string, to: CallStatus): void {
  if (!canChangeCallStatus(from, to)) {
    throw new AppError(ErrorCode.InvalidStateTransition, `The call is ${from}, a final status; it cannot become ${to}.`);
  }
}

/** True when this write is the call's move to completed (the only moment call.completed is emitted). */
export function completesCall(from: string | null, to: string): boolean {
  return to === 'completed' && from !== 'completed';
}
