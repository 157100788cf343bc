import { emitsEvents } from './event-emission';

describe('which changes emit webhook events', () => {
  const live = { demo: false, organizationStatus: 'active', sandbox: false };

  it('a live portfolio of an active organization emits, sandbox or not', () => {
    expect(emitsEvents(live)).toBe(true);
    expect(emitsEvents({ ...live, sandbox: true })).toBe(true);
  });

  it('a demo portfolio, a suspended organization or a missing portfolio emits nothing', () => {
    expect(emitsEvents({ ...live, demo: true })).toBe(false);
    expect(emitsEvents({ ...live, organizationStatus: 'suspended' })).toBe(false);
    expect(emitsEvents(null)).toBe(false);
  });
});
