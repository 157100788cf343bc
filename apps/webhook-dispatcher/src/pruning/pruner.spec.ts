import { newId } from '@dc/database';
import { firstEventIdAt } from './pruner';

describe('firstEventIdAt', () => {
  it('sorts after every event id written before the instant and before every one written from it on', () => {
    const now = Date.now();
    const cutoff = firstEventIdAt(now + 1_000);
    const earlier = newId('evt');
    expect(earlier < cutoff).toBe(true);
    expect(firstEventIdAt(now - 86_400_000) < earlier).toBe(true);
    expect(cutoff).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});
