import { loadConfig } from './config';

/** DATABASE_REPLICA_* (docs/adr/0050). */
describe('read replica settings', () => {
  it('has no replicas by default, with the documented bounds', () => {
    expect(loadConfig('api-core', {}).database.replicas).toEqual({ urls: [], maxLagMs: 5_000, waitMs: 50, probeIntervalMs: 1_000 });
  });

  it('reads a comma-separated list and gives each URL without a password DATABASE_PASSWORD', () => {
    const config = loadConfig('api-core', {
      DATABASE_PASSWORD: 'p@ss word',
      DATABASE_REPLICA_URLS: ' postgresql://dc_app@replica-1:5432/dc , postgresql://dc_app:own@replica-2/dc',
      DATABASE_REPLICA_MAX_LAG_MS: '2000',
      DATABASE_REPLICA_WAIT_MS: '100',
      DATABASE_REPLICA_PROBE_MS: '250',
    });
    expect(config.database.replicas).toEqual({
      urls: ['postgresql://dc_app:p%40ss%20word@replica-1:5432/dc', 'postgresql://dc_app:own@replica-2/dc'],
      maxLagMs: 2_000,
      waitMs: 100,
      probeIntervalMs: 250,
    });
  });

  it('refuses a URL that is not postgresql://, and a wait longer than the lag bound, naming the variable', () => {
    expect(() => loadConfig('api-core', { DATABASE_REPLICA_URLS: 'postgresql://a/dc,mysql://b/dc' })).toThrow(
      'DATABASE_REPLICA_URLS: entry 2 must be a postgresql:// URL (got mysql:)',
    );
    expect(() => loadConfig('api-core', { DATABASE_REPLICA_URLS: 'not a url' })).toThrow('DATABASE_REPLICA_URLS: entry 1 is not a URL');
    expect(() => loadConfig('api-core', { DATABASE_REPLICA_MAX_LAG_MS: '1000', DATABASE_REPLICA_WAIT_MS: '2000' })).toThrow(
      'DATABASE_REPLICA_WAIT_MS (2000) must not exceed DATABASE_REPLICA_MAX_LAG_MS (1000)',
    );
  });
});
