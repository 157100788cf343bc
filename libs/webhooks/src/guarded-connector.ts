import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { buildConnector } from 'undici';
import type { LookupAll } from './address-lookup';
import { nonPublicLabel, withArticle } from './public-address';

/**
 * SSRF at delivery time (docs/adr/0020): the Agent's `connect`. Each new connection resolves EVERY
 * A/AAAA record, refuses if any is non-public, then connects to a checked address with TLS SNI and
 * certificate check against the original hostname (and the Host header untouched). No second
 * lookup happens, so a name cannot rebind between check and connect.
 */

/** A delivery refused because its target address is not public. */
export class AddressRefusedError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';

  constructor(
    message: string,
    readonly address: string,
  ) {
    super(message);
    this.name = 'AddressRefusedError';
  }
}

/** The name did not resolve (or the resolver did not answer in time). */
export class DnsLookupError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly hostname: string,
  ) {
    super(message);
    this.name = 'DnsLookupError';
  }
}

export interface GuardedConnectorOptions {
  allowPrivateTargets: boolean;
  lookup: LookupAll;
  /** Bounds the lookup and each TCP/TLS connect. */
  timeoutMs: number;
  /** TLS options for every connection, e.g. `ca` (replaces Node's CA bundle: tests, private PKI). */
  tls?: ConnectionOptions;
}

/** Errors worth trying the next address for: this address cannot be reached, another may be (IPv6 without a route, say). */
const TRY_NEXT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EAFNOSUPPORT']);
/** Origins remembered at most; past it the map starts again (it only serves reporting). */
const MAX_ORIGINS = 10_000;

const dialed = new WeakMap<Error, string>();

/** The address a failed connection was trying, when the failure came from a connect. */
export function dialedAddress(err: Error): string | undefined {
  return dialed.get(err);
}

export class GuardedConnector {
  private readonly base: buildConnector.connector;
  private readonly addresses = new Map<string, string>();

  constructor(private readonly options: GuardedConnectorOptions) {
    this.base = buildConnector({ ...options.tls, timeout: options.timeoutMs });
  }

  /**
   * The address the origin's connections go to (`https://host[:port]`). Exact while the name keeps
   * resolving to it: new connections reuse it whenever it is still among the answers (see `order`).
   */
  addressOf(origin: string): string | null {
    return this.addresses.get(origin) ?? null;
  }

  readonly connect: buildConnector.connector = (target, callback) => {
    const origin = `${target.protocol}//${target.host}`;
    const { hostname } = target;
    if (isIP(hostname)) {
      const refusal = this.refusal(hostname, hostname);
      if (refusal) return callback(refusal, null);
      return this.dial(target, origin, [hostname], 0, callback);
    }
    this.resolve(hostname).then(
      (addresses) => {
        for (const address of addresses) {
          const refusal = this.refusal(hostname, address);
          if (refusal) return callback(refusal, null);
        }
        this.dial({ ...target, servername: target.servername || hostname }, origin, this.order(origin, addresses), 0, callback);
      },
      (err: Error) => callback(err, null),
    );
  };

  private refusal(hostname: string, address: string): AddressRefusedError | null {
    if (this.options.allowPrivateTargets) return null;
    const label = nonPublicLabel(address);
    if (label === null) return null;
    const message = hostname === address ? `${address} is ${withArticle(label)}: refused` : `${hostname} resolves to ${address} (${label}): refused`;
    return new AddressRefusedError(message, address);
  }

  private async resolve(hostname: string): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DnsLookupError(`dns lookup of ${hostname} timed out`, 'ETIMEOUT', hostname)), this.options.timeoutMs);
    });
    try {
      const addresses = await Promise.race([this.options.lookup(hostname), timeout]);
      if (!addresses.length) throw new DnsLookupError(`dns lookup of ${hostname} found no address`, 'ENOTFOUND', hostname);
      return addresses;
    } catch (err) {
      if (err instanceof DnsLookupError) throw err;
      const code = (err as NodeJS.ErrnoException)?.code ?? 'EAI_FAIL';
      throw new DnsLookupError(`dns lookup of ${hostname} failed (${code})`, code, hostname);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The address this origin already uses first, when still resolved: all its connections then share one address. */
  private order(origin: string, addresses: string[]): string[] {
    const current = this.addresses.get(origin);
    if (!current || addresses[0] === current || !addresses.includes(current)) return addresses;
    return [current, ...addresses.filter((address) => address !== current)];
  }

  private dial(target: buildConnector.Options, origin: string, addresses: string[], index: number, callback: buildConnector.Callback): void {
    const address = addresses[index];
    if (this.addresses.size >= MAX_ORIGINS && !this.addresses.has(origin)) this.addresses.clear();
    this.addresses.set(origin, address);
    this.base({ ...target, hostname: address }, (...args) => {
      const [err] = args;
      if (err) {
        const code = (err as NodeJS.ErrnoException).code ?? '';
        if (index + 1 < addresses.length && TRY_NEXT.has(code)) return this.dial(target, origin, addresses, index + 1, callback);
        dialed.set(err, address);
      }
      callback(...args);
    });
  }
}
