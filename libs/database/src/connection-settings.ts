import type { ConnectionOptions } from 'node:tls';
import type { DatabaseOptions } from './database.service';

/** URL parameters that would override an explicit `ssl` option in `pg` (the connection string wins there). */
const URL_SSL_PARAMETERS = ['sslmode', 'ssl', 'sslrootcert', 'sslcert', 'sslkey', 'uselibpqcompat'];

/**
 * The `pg` connection settings of the pool and of sessions (docs/adr/0027): with a CA, TLS that
 * verifies the server's certificate against it (and its host name, unless sslmode=verify-ca);
 * `sslmode=disable` turns TLS off. Without a CA the URL is used as it is: `pg` reads `sslmode`
 * (require, verify-ca and verify-full all verify against the system's CAs).
 */
export function connectionSettings(url: string, ssl?: DatabaseOptions['ssl']): { connectionString: string; ssl?: ConnectionOptions } {
  if (!ssl) return { connectionString: url };
  const parsed = new URL(url);
  const mode = parsed.searchParams.get('sslmode');
  for (const name of URL_SSL_PARAMETERS) parsed.searchParams.delete(name);
  if (mode === 'disable') return { connectionString: parsed.toString() };
  return {
    connectionString: parsed.toString(),
    ssl: { ca: ssl.ca, rejectUnauthorized: true, ...(ssl.verifyHostname ? {} : { checkServerIdentity: () => undefined }) },
  };
}

