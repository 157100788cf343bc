import { redisOptions } from './redis-connection';

const base = { keyPrefix: 'dc', commandTimeoutMs: 1000, connectTimeoutMs: 2000 };

describe('redisOptions', () => {
  it('takes the address and database from the URL, the ACL user from the config', () => {
    expect(redisOptions({ ...base, url: 'redis://redis:6380/2', username: 'gateway', password: 'secret' }, { commandTimeout: 1000 })).toEqual({
      host: 'redis',
      port: 6380,
      db: 2,
      username: 'gateway',
      password: 'secret',
      connectTimeout: 2000,
      disableClientInfo: true,
      commandTimeout: 1000,
    });
    expect(redisOptions({ ...base, url: 'redis://127.0.0.1:6379' })).toEqual({ host: '127.0.0.1', port: 6379, db: 0, connectTimeout: 2000, disableClientInfo: true });
  });

  it('turns on TLS for rediss://, with the configured CA and the host name checked', () => {
    expect(redisOptions({ ...base, url: 'rediss://redis.internal', tlsCa: 'PEM' })).toMatchObject({
      host: 'redis.internal',
      port: 6379,
      tls: { servername: 'redis.internal', ca: 'PEM' },
    });
    expect(redisOptions({ ...base, url: 'rediss://[::1]:6390' })).toMatchObject({ host: '::1', port: 6390, tls: {} }); // no SNI for an address
  });
});
