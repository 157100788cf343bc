import { CALL_STATUSES, ErrorCode } from '@dc/contracts';
import { assertCallStatusChange, canChangeCallStatus, completesCall } from './call-status';

describe('call status changes', () => {
  it.each(['queued', 'ringing', 'in_progress'])('a live call (%s) can take any status', (from) => {
    for (const to of CALL_STATUSES) expect(canChangeCallStatus(from, to)).toBe(true);
  });

  it.each(['completed', 'no_answer', 'busy', 'failed', 'cancelled'] as const)('a final call (%s) keeps its status', (from) => {
    expect(canChangeCallStatus(from, from)).toBe(true);
    for (const to of CALL_STATUSES.filter((s) => s !== from)) {
      expect(canChangeCallStatus(from, to)).toBe(false);
      expect(() => assertCallStatusChange(from, to)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidStateTransition }));
    }
  });

  it('completion is the move to completed, once', () => {
    expect(completesCall(null, 'completed')).toBe(true);
    expect(completesCall('in_progress', 'completed')).toBe(true);
    expect(completesCall('completed', 'completed')).toBe(false);
    expect(completesCall(null, 'queued')).toBe(false);
    expect(completesCall('queued', 'ringing')).toBe(false);
  });
});
