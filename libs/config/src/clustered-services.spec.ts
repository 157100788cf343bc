import { bullPrefix } from './bull-prefix';
import { ConfigError, loadConfig } from './config';

/** NATS_URL as the seed list of a NATS cluster (docs/adr/0033). */
describe('NATS_URL: one server or a cluster', () => {
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadConfig('gateway', env);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  it('one URL is a list of one; the default is the local server', () => {
    expect(loadConfig('gateway', {}).nats.servers).toEqual(['nats://127.0.0.1:4222']);
    expect(loadConfig('gateway', { NATS_URL: 'nats://nats:4222' }).nats.servers).toEqual(['nats://nats:4222']);
  });

  it('a comma-separated list gives every server, in order, blanks around the commas ignored', () => {
    const nats = loadConfig('api-core', { NATS_URL: 'nats://nats-0.nats:4222, nats://nats-1.nats:4222 ,nats://nats-2.nats:4222' }).nats;
    expect(nats.servers).toEqual(['nats://nats-0.nats:4222', 'nats://nats-1.nats:4222', 'nats://nats-2.nats:4222']);
    expect(nats.tls).toBeUndefined();
  });

  it('a list of tls:// servers requires TLS', () => {
    const nats = loadConfig('gateway', { NATS_URL: 'tls://a:4222,tls://b:4222' }).nats;
    expect(nats.servers).toEqual(['tls://a:4222', 'tls://b:4222']);
    expect(nats.tls).toEqual({});
  });

  it('each entry is checked, and named by its position', () => {
    expect(problems({ NATS_URL: 'nats://a:4222,http://b:4222' })).toEqual(['NATS_URL entry 2 must use nats: or tls: (got "http:")']);
    expect(problems({ NATS_URL: 'nats://a:4222,not a url' })).toEqual(['NATS_URL entry 2 must be a URL (got a value that does not parse)']);
    expect(problems({ NATS_URL: 'redis://a:6379' })).toEqual(['NATS_URL must use nats: or tls: (got "redis:")']);
  });

  it('refuses empty entries and a mixture of tls:// and nats://', () => {
    expect(problems({ NATS_URL: 'nats://a:4222,,nats://b:4222' })).toEqual([
      'NATS_URL must be one URL or a comma-separated list of URLs without empty entries (got "nats://a:4222,,nats://b:4222")',
    ]);
    expect(problems({ NATS_URL: 'nats://a:4222,' })).toHaveLength(1);
    expect(problems({ NATS_URL: 'tls://a:4222,nats://b:4222' })).toEqual(['NATS_URL mixes tls:// and nats:// servers: TLS is required of all of them or of none']);
  });
});

describe('REDIS_KEY_PREFIX and DATABASE_PREPARED_STATEMENTS (docs/adr/0033)', () => {
  it('the key prefix holds no braces: the BullMQ prefix adds the hash tag', () => {
    expect(loadConfig('importer', { REDIS_KEY_PREFIX: 'dc-eu.1' }).redis.keyPrefix).toBe('dc-eu.1');
    expect(() => loadConfig('importer', { REDIS_KEY_PREFIX: '{dc}' })).toThrow('REDIS_KEY_PREFIX may hold letters, digits, _ . and - only (got "{dc}")');
    expect(() => loadConfig('importer', { REDIS_KEY_PREFIX: 'dc:x' })).toThrow('REDIS_KEY_PREFIX may hold letters, digits, _ . and - only');
    expect(bullPrefix(loadConfig('importer', {}).redis)).toBe('{dc}');
  });

  it('named prepared statements are on by default, off behind a transaction-pooling PgBouncer', () => {
    expect(loadConfig('api-core', {}).database.preparedStatements).toBe(true);
    expect(loadConfig('api-core', { DATABASE_PREPARED_STATEMENTS: 'false' }).database.preparedStatements).toBe(false);
  });
});
