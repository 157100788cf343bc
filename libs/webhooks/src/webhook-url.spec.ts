import type { LookupAll } from './address-lookup';
import { systemLookup } from './address-lookup';
import { checkWebhookUrl } from './webhook-url';

const PUBLIC_ONLY = 'webhooks are delivered to public hosts only';
const strict = { allowPrivateTargets: false };

/** A resolver that knows a few names and fails for the rest as the system one does. */
const fakeLookup: LookupAll = async (hostname) => {
  const table: Record<string, string[]> = {
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'mixed.example.com': ['93.184.216.34', '10.0.0.1'],
    'rebind.example.com': ['2606:4700:4700::1111', '::ffff:127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
  };
  const found = table[hostname];
  if (found) return found;
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

describe('checkWebhookUrl', () => {
  it.each([
    ['http://hooks.example.com/in', 'url must use https'],
    ['ftp://hooks.example.com/in', 'url must use https'],
    ['not a url', 'url is not a valid URL'],
    ['/relative/path', 'url is not a valid URL'],
    ['', 'url is not a valid URL'],
    ['https://user:pass@hooks.example.com/in', 'url must not contain credentials (user:pass@)'],
    ['https://token@hooks.example.com/in', 'url must not contain credentials (user:pass@)'],
    ['https://localhost/in', `url host localhost is a loopback name: ${PUBLIC_ONLY}`],
    ['https://LOCALHOST:8443/in', `url host localhost is a loopback name: ${PUBLIC_ONLY}`],
    ['https://localhost./in', `url host localhost. is a loopback name: ${PUBLIC_ONLY}`],
    ['https://sub.localhost/in', `url host sub.localhost is a loopback name: ${PUBLIC_ONLY}`],
    ['https://127.0.0.1/in', `url host 127.0.0.1 is a loopback address: ${PUBLIC_ONLY}`],
    ['https://2130706433/in', `url host 127.0.0.1 is a loopback address: ${PUBLIC_ONLY}`],
    ['https://[::1]/in', `url host ::1 is a loopback address: ${PUBLIC_ONLY}`],
    ['https://[::ffff:127.0.0.1]/in', `url host ::ffff:7f00:1 is an IPv4-mapped loopback address: ${PUBLIC_ONLY}`],
    ['https://10.0.0.5/in', `url host 10.0.0.5 is a private address: ${PUBLIC_ONLY}`],
    ['https://169.254.169.254/latest/meta-data', `url host 169.254.169.254 is a cloud metadata address: ${PUBLIC_ONLY}`],
    ['https://[fd00:ec2::254]/', `url host fd00:ec2::254 is a cloud metadata address: ${PUBLIC_ONLY}`],
    ['https://0.0.0.0/', `url host 0.0.0.0 is an unspecified address: ${PUBLIC_ONLY}`],
    ['https://mixed.example.com/in', `url host mixed.example.com resolves to 10.0.0.1, a private address: ${PUBLIC_ONLY}`],
    ['https://rebind.example.com/in', `url host rebind.example.com resolves to ::ffff:127.0.0.1, an IPv4-mapped loopback address: ${PUBLIC_ONLY}`],
    ['https://metadata.example.com/', `url host metadata.example.com resolves to 169.254.169.254, a cloud metadata address: ${PUBLIC_ONLY}`],
  ])('refuses %s: %s', async (url, reason) => {
    await expect(checkWebhookUrl(url, strict, fakeLookup)).resolves.toEqual({ ok: false, reason });
  });

  it.each([
    'https://93.184.216.34/in',
    'https://[2606:4700:4700::1111]:8443/in',
    'https://hooks.example.com/in?token=abc',
    'https://hooks.example.com:8443/in',
    // Does not resolve (yet): accepted, the delivery-time check is the authority.
    'https://not-yet-live.example.com/in',
  ])('accepts %s', async (url) => {
    await expect(checkWebhookUrl(url, strict, fakeLookup)).resolves.toEqual({ ok: true });
  });

  it('asks the resolver only for names, never for literal addresses', async () => {
    const lookup = jest.fn(fakeLookup);
    await checkWebhookUrl('https://93.184.216.34/', strict, lookup);
    await checkWebhookUrl('https://localhost/', strict, lookup);
    expect(lookup).not.toHaveBeenCalled();
    await checkWebhookUrl('https://hooks.example.com/', strict, lookup);
    expect(lookup).toHaveBeenCalledWith('hooks.example.com');
  });

  it('accepts a name whose resolver does not answer within 2 s, without waiting longer', async () => {
    jest.useFakeTimers();
    try {
      const check = checkWebhookUrl('https://slow.example.com/', strict, () => new Promise<string[]>(() => undefined));
      await jest.advanceTimersByTimeAsync(1_999);
      let settled = false;
      void check.then(() => (settled = true));
      await Promise.resolve();
      expect(settled).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await expect(check).resolves.toEqual({ ok: true });
    } finally {
      jest.useRealTimers();
    }
  });

  it('with allowPrivateTargets accepts anything http(s)', async () => {
    const open = { allowPrivateTargets: true };
    const lookup = jest.fn(fakeLookup);
    for (const url of ['http://127.0.0.1:8080', 'http://localhost:3000/hook', 'https://10.0.0.5/', 'https://mixed.example.com/', 'http://u:p@[::1]:9/']) {
      await expect(checkWebhookUrl(url, open, lookup)).resolves.toEqual({ ok: true });
    }
    expect(lookup).not.toHaveBeenCalled();
    await expect(checkWebhookUrl('ftp://127.0.0.1/', open, lookup)).resolves.toEqual({ ok: false, reason: 'url must use http or https' });
    await expect(checkWebhookUrl('nope', open, lookup)).resolves.toEqual({ ok: false, reason: 'url is not a valid URL' });
  });

  it('uses the system resolver by default, which knows localhost from /etc/hosts', async () => {
    await expect(systemLookup('localhost')).resolves.toEqual(expect.arrayContaining([expect.stringMatching(/^(127\.0\.0\.1|::1)$/)]));
    // 'localhost' itself is refused by name; a name in .localhost resolves to loopback and is refused either way.
    await expect(checkWebhookUrl('https://localhost/', strict)).resolves.toEqual({ ok: false, reason: `url host localhost is a loopback name: ${PUBLIC_ONLY}` });
  });
});
