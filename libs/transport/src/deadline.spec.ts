import { parseDeadline, withTimeout } from './deadline';

describe('parseDeadline', () => {
  it('reads epoch milliseconds', () => {
    expect(parseDeadline('1764000000000')).toBe(1_764_000_000_000);
  });

  it('treats an absent or malformed header as no deadline', () => {
    expect(parseDeadline(undefined)).toBeUndefined();
    expect(parseDeadline('')).toBeUndefined();
    expect(parseDeadline('-5')).toBeUndefined();
    expect(parseDeadline('12.5')).toBeUndefined();
    expect(parseDeadline('1e12')).toBeUndefined();
    expect(parseDeadline('9'.repeat(16))).toBeUndefined();
  });
});

describe('withTimeout', () => {
  it('passes a value that arrives in time', async () => {
    await expect(withTimeout(Promise.resolve(7), 50, 'x')).resolves.toBe(7);
  });

  it('rejects once the time is up', async () => {
    await expect(withTimeout(new Promise(() => undefined), 20, 'NATS flush')).rejects.toThrow('NATS flush timed out after 20 ms');
  });

  it('passes a failure that arrives in time', async () => {
    await expect(withTimeout(Promise.reject(new Error('boom')), 50, 'x')).rejects.toThrow('boom');
  });
});
