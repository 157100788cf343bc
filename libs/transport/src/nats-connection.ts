import type { ConnectionOptions } from 'nats';
import { natsInboxPrefix, NatsService } from './nats-permissions';

/** TLS towards NATS: PEM texts (read by libs/config from NATS_TLS_*_FILE). */
export interface NatsTls {
  /** The CA that signed the server's certificate, when not a public one. */
  ca?: string;
  /** Client certificate and key, for a server that verifies clients (mutual TLS). */
  cert?: string;
  key?: string;
}

/** How one process reaches NATS (libs/config `nats`); user and password are absent in development. */
export interface NatsAccess {
  /** The servers of one NATS cluster (NATS_URL, comma-separated): nats.js fails over between them. */
  servers: string[];
  subjectPrefix: string;
  user?: string;
  password?: string;
  /** Set: TLS is required (nats.js refuses a server that does not offer it). */
  tls?: NatsTls;
}

/**
 * The nats.js connect options every connection of a service uses: its credentials, TLS, and its
 * own reply inbox (`inboxPrefix`), the one subject tree its NATS user may read replies from.
 */
export function natsConnectOptions(access: NatsAccess, service: NatsService): ConnectionOptions {
  const options: ConnectionOptions = { servers: [...access.servers], inboxPrefix: natsInboxPrefix(service, access.subjectPrefix) };
  if (access.user !== undefined) {
    options.user = access.user;
    options.pass = access.password;
  }
  if (access.tls) options.tls = { ...access.tls };
  return options;
}
