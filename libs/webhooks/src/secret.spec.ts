import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, isWebhookSecret, standardWebhooksKey, WEBHOOK_SECRET_PREFIX } from './secret';

describe('generateWebhookSecret', () => {
  it('is whsec_ and 43 characters of the standard base64 alphabet, without padding, encoding 32 bytes', () => {
    const secret = generateWebhookSecret();
    expect(WEBHOOK_SECRET_PREFIX).toBe('whsec_');
    expect(secret.startsWith('whsec_')).toBe(true);
    expect(secret).toHaveLength(49);
    expect(secret.slice(6)).toMatch(/^[A-Za-z0-9+/]{43}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    // Re-encoding the 32 bytes gives the same 43 characters plus the one '=' that was removed.
    expect(Buffer.from(secret.slice(6), 'base64').toString('base64')).toBe(`${secret.slice(6)}=`);
    expect(isWebhookSecret(secret)).toBe(true);
  });

  it('never repeats', () => {
    const secrets = new Set(Array.from({ length: 1000 }, generateWebhookSecret));
    expect(secrets.size).toBe(1000);
  });

  it('gives the key the standardwebhooks library derives from it', () => {
    const secret = generateWebhookSecret();
    const webhook = new Webhook(secret) as unknown as { key: Uint8Array };
    expect(Buffer.from(webhook.key)).toEqual(standardWebhooksKey(secret));
    expect(standardWebhooksKey(secret)).toHaveLength(32);
  });
});

describe('isWebhookSecret', () => {
  it.each([
    ['whsec_' + 'A'.repeat(43), true],
    ['whsec_' + 'a+/9'.repeat(10) + 'abc', true],
    ['whsec_' + 'A'.repeat(42), false],
    ['whsec_' + 'A'.repeat(44), false],
    ['whsec_' + 'A'.repeat(42) + '=', false],
    ['whsec_' + 'A'.repeat(42) + '-', false],
    ['whsec_' + 'A'.repeat(42) + '_', false],
    ['WHSEC_' + 'A'.repeat(43), false],
    ['sk_' + 'A'.repeat(43), false],
    ['A'.repeat(43), false],
    ['', false],
  ])('%s → %s', (value, expected) => {
    expect(isWebhookSecret(value)).toBe(expected);
  });
});

describe('standardWebhooksKey', () => {
  it('decodes the part after whsec_', () => {
    const key = Buffer.alloc(32, 0xab);
    expect(standardWebhooksKey(`whsec_${key.toString('base64').replace(/=+$/, '')}`)).toEqual(key);
  });

  it('refuses anything else', () => {
    expect(() => standardWebhooksKey('not-a-secret')).toThrow('not a webhook secret');
  });
});
