import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('gives development defaults for an empty environment', () => {
    const config = loadConfig('gateway', {});
    expect(config.env).toBe('development');
    expect(config.gateway.port).toBe(3000);
    expect(config.gateway.operatorPort).toBe(3001);
    expect(config.rateLimit.unitsPerMinute).toBe(300);
    expect(config.gateway.authCacheTtlMs).toBe(60_000);
  });

  it('lists every problem at once', () => {
    expect.assertions(3);
    try {
      loadConfig('gateway', { PORT: 'abc', DATABASE_URL: 'mysql://x', NODE_ENV: 'staging' });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toEqual([
        'NODE_ENV must be one of development, test, production (got "staging")',
        'PORT must be an integer from 0 to 65535 (got "abc")',
        'DATABASE_URL must use postgresql: or postgres: (got "mysql:")',
      ]);
      expect((err as Error).message).toContain('Invalid configuration');
    }
  });

  it('refuses production without a strong operator token', () => {
    expect(() => loadConfig('gateway', { NODE_ENV: 'production' })).toThrow(
      'OPERATOR_TOKEN is required in production and must be at least 32 characters',
    );
    expect(loadConfig('gateway', { NODE_ENV: 'production', OPERATOR_TOKEN: 'x'.repeat(32) }).gateway.operatorToken).toBe(
      'x'.repeat(32),
    );
  });

  it('refuses an Idempotency-Key lease that a gateway timeout could outlive', () => {
    expect(() => loadConfig('gateway', { NATS_REQUEST_TIMEOUT_MS: '10000', IDEMPOTENCY_LEASE_MS: '10000' })).toThrow(
      'IDEMPOTENCY_LEASE_MS (10000) must be longer than NATS_REQUEST_TIMEOUT_MS (10000)',
    );
    expect(loadConfig('gateway', { NATS_REQUEST_TIMEOUT_MS: '500', IDEMPOTENCY_LEASE_MS: '1000' }).idempotency.leaseMs).toBe(1000);
  });
});
