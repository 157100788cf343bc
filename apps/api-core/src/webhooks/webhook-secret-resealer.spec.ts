import type { AppConfig } from '@dc/config';
import type { Logger } from '@dc/observability';
import { SecretBox, webhookSecretContext } from '@dc/webhooks';
import { randomBytes } from 'node:crypto';
import { WebhookSecretResealer } from './webhook-secret-resealer';
import { WebhookSecrets } from './webhook-secrets';
import type { WebhooksRepository } from './webhooks.repository';

const OLD_KEY = randomBytes(32);
const NEW_KEY = randomBytes(32);

describe('WebhookSecretResealer', () => {
  it('seals the current and the previous secret (a rotation in its overlap) sealed with a previous key again with the current one', async () => {
    const old = new SecretBox(OLD_KEY);
    const current = new SecretBox(NEW_KEY);
    const sealed = (box: SecretBox, id: string, secret: string) => box.seal(secret, webhookSecretContext(id));
    const rows = [
      { id: 'whk_a', ciphertext: sealed(old, 'whk_a', 'whsec_a_now'), previousCiphertext: sealed(old, 'whk_a', 'whsec_a_before') },
      { id: 'whk_b', ciphertext: sealed(current, 'whk_b', 'whsec_b_now'), previousCiphertext: sealed(old, 'whk_b', 'whsec_b_before') },
      { id: 'whk_c', ciphertext: sealed(current, 'whk_c', 'whsec_c_now'), previousCiphertext: null },
    ];
    const replaced: Record<string, { id: string; from: string; to: string }[]> = { current: [], previous: [] };
    const repository = {
      secretsAfter: jest.fn(async (after: string | null) => (after === null ? rows : [])),
      replaceSecrets: jest.fn(async (changes: { id: string; from: string; to: string }[]) => (replaced.current.push(...changes), changes.length)),
      replacePreviousSecrets: jest.fn(async (changes: { id: string; from: string; to: string }[]) => (replaced.previous.push(...changes), changes.length)),
    };
    const config = { webhooks: { secretKey: NEW_KEY, previousSecretKeys: [OLD_KEY] } } as unknown as AppConfig;
    const logger = { info: jest.fn() } as unknown as Logger;
    const resealer = new WebhookSecretResealer(repository as unknown as WebhooksRepository, new WebhookSecrets(config), logger);

    expect(await resealer.resealAll()).toBe(3);
    expect(replaced.current.map((c) => [c.id, c.from])).toEqual([['whk_a', rows[0].ciphertext]]);
    expect(replaced.previous.map((c) => [c.id, c.from])).toEqual([['whk_a', rows[0].previousCiphertext], ['whk_b', rows[1].previousCiphertext]]);
    const opens = (to: string, id: string) => new SecretBox(NEW_KEY).open(to, webhookSecretContext(id));
    expect(opens(replaced.current[0].to, 'whk_a')).toBe('whsec_a_now');
    expect(opens(replaced.previous[0].to, 'whk_a')).toBe('whsec_a_before');
    expect(opens(replaced.previous[1].to, 'whk_b')).toBe('whsec_b_before');
  });
});
