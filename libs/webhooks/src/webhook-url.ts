import { isIP } from 'node:net';
import { systemLookup, type LookupAll } from './address-lookup';
import { nonPublicLabel, withArticle } from './public-address';

export interface TargetPolicy {
  /** Development and tests only (refused in production by the config): http and private targets. */
  allowPrivateTargets: boolean;
}

export type UrlCheck = { ok: true } | { ok: false; reason: string };

const PUBLIC_ONLY = 'webhooks are delivered to public hosts only';
/** Registration runs inside an API request: a slow resolver must not use up its deadline. */
const LOOKUP_TIMEOUT_MS = 2_000;

/**
 * Registration check (api-core answers 400 with `reason`): the URL parses; https only (http only
 * with allowPrivateTargets); no userinfo; a literal IP must be public; 'localhost' and '*.localhost'
 * are refused; any other name is resolved with `lookup` and refused if ANY address is non-public.
 * A name that does not resolve (within 2 s) is accepted: the delivery-time check (WebhookHttpClient) is the
 * authority, this one gives the developer an early, precise answer.
 * With allowPrivateTargets everything that parses as http(s) is accepted.
 */
export async function checkWebhookUrl(url: string, policy: TargetPolicy, lookup: LookupAll = systemLookup): Promise<UrlCheck> {
  const parsed = parseUrl(url);
  if (!parsed) return refuse('url is not a valid URL');
  const { protocol } = parsed;
  if (policy.allowPrivateTargets) return protocol === 'https:' || protocol === 'http:' ? { ok: true } : refuse('url must use http or https');
  if (protocol !== 'https:') return refuse('url must use https');
  if (parsed.username || parsed.password) return refuse('url must not contain credentials (user:pass@)');

  const host = hostOf(parsed);
  if (!host) return refuse('url has no host');
  if (isIP(host)) {
    const label = nonPublicLabel(host);
    return label === null ? { ok: true } : refuse(`url host ${host} is ${withArticle(label)}: ${PUBLIC_ONLY}`);
  }
  const name = host.replace(/\.+$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return refuse(`url host ${host} is a loopback name: ${PUBLIC_ONLY}`);

  let addresses: string[];
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('lookup timed out')), LOOKUP_TIMEOUT_MS);
    });
    addresses = await Promise.race([lookup(host), timeout]);
  } catch {
    return { ok: true }; // unresolvable or slow: accepted, the delivery-time check decides
  } finally {
    clearTimeout(timer);
  }
  for (const address of addresses) {
    const label = nonPublicLabel(address);
    if (label !== null) return refuse(`url host ${host} resolves to ${address}, ${withArticle(label)}: ${PUBLIC_ONLY}`);
  }
  return { ok: true };
}

export function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** The URL's host without IPv6 brackets (URL keeps them: `[::1]`). */
export function hostOf(url: URL): string {
  const { hostname } = url;
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function refuse(reason: string): UrlCheck {
  return { ok: false, reason };
}
