import { AppError, ErrorCode, WebhookView } from '@dc/contracts';
import type { AppConfig } from '@dc/config';
import type { Transactions, Tx } from '@dc/database';
import type { OrganizationsRepository } from '../organizations/organizations.repository';
import type { PortfoliosRepository } from '../portfolios/portfolios.repository';
import { PortfolioSelection } from '../portfolios/portfolio-selection';
import type { WebhookSecrets } from './webhook-secrets';
import type { WebhooksRepository } from './webhooks.repository';
import { recoveryWindow, redeliveryRefusal, refusedUrl, WebhooksService } from './webhooks.service';

const WEBHOOK: WebhookView = {
  id: 'whk_01JD0000000000000000000000',
  organizationId: 'org_01JD0000000000000000000000',
  url: 'https://93.184.216.34/hooks',
  portfolioIds: [],
  enabled: true,
  failingSince: null,
  disabledAt: null,
  disabledReason: null,
  standardWebhooks: false,
  previousSecretExpiresAt: null,
  createdAt: '2026-01-05T10:00:00.000Z',
  updatedAt: '2026-01-05T10:00:00.000Z',
};

function service(overrides: Partial<Record<keyof WebhooksRepository, jest.Mock>> = {}) {
  const calls: string[] = [];
  const tx = {} as Tx;
  const repository = {
    findLive: jest.fn(async () => WEBHOOK),
    update: jest.fn(async (_tx: Tx, _id: string, changes: Partial<WebhookView>) => ({
      ...WEBHOOK,
      ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
    })),
    softDelete: jest.fn(async () => true),
    cancelPendingDeliveries: jest.fn(async (given: Tx) => {
      calls.push(given === tx ? 'cancel in tx' : 'cancel outside tx');
      return 1;
    }),
    redeliver: jest.fn(async () => null),
    redeliveryState: jest.fn(async () => null),
    recoverFailed: jest.fn(async () => 3 as number | null),
    rotateSecret: jest.fn(async (_id: string, _ciphertext: string, overlapSeconds: number) => ({
      ...WEBHOOK,
      previousSecretExpiresAt: overlapSeconds > 0 ? '2026-01-06T10:00:00.000Z' : null,
    })),
    ...overrides,
  };
  const secrets = { issue: jest.fn((id: string) => ({ secret: `whsec_new_for_${id}`, ciphertext: `sealed_for_${id}` })) };
  const transactions: Transactions = {
    transaction: async (fn) => {
      calls.push('begin');
      const result = await fn(tx);
      calls.push('commit');
      return result;
    },
  };
  const config = { webhooks: { allowPrivateTargets: false } } as AppConfig;
  const webhooks = new WebhooksService(
    repository as unknown as WebhooksRepository,
    {} as OrganizationsRepository,
    new PortfolioSelection({ idsOfOrganization: async (_org: string, ids: string[]) => new Set(ids) } as unknown as PortfoliosRepository),
    secrets as unknown as WebhookSecrets,
    transactions,
    config,
  );
  return { webhooks, repository, calls, secrets };
}

describe('WebhooksService', () => {
  it('disabling cancels the pending deliveries inside the update\'s transaction', async () => {
    const { webhooks, repository, calls } = service();
    await expect(webhooks.update(WEBHOOK.id, { enabled: false })).resolves.toMatchObject({ enabled: false });
    expect(repository.update).toHaveBeenCalledWith(expect.anything(), WEBHOOK.id, expect.objectContaining({ enabled: false }));
    expect(calls).toEqual(['begin', 'cancel in tx', 'commit']);
  });

  it('other changes cancel nothing; an empty change writes nothing', async () => {
    const { webhooks, repository, calls } = service();
    await webhooks.update(WEBHOOK.id, { standardWebhooks: true, portfolioIds: ['pf_a', 'pf_a'] });
    expect(repository.update).toHaveBeenCalledWith(expect.anything(), WEBHOOK.id, expect.objectContaining({ standardWebhooks: true, portfolioIds: ['pf_a'] }));
    expect(calls).toEqual(['begin', 'commit']);
    repository.update.mockClear();
    await expect(webhooks.update(WEBHOOK.id, {})).resolves.toEqual(WEBHOOK);
    expect(repository.update).not.toHaveBeenCalled();
  });

  it('a webhook deleted between the read and the write is 404', async () => {
    const { webhooks } = service({ update: jest.fn(async () => null) });
    await expect(webhooks.update(WEBHOOK.id, { enabled: false })).rejects.toMatchObject({ code: ErrorCode.NotFound });
  });

  it('deletion cancels pending deliveries in its transaction; a missing webhook is 404 and cancels nothing', async () => {
    const found = service();
    await found.webhooks.delete(WEBHOOK.id);
    expect(found.calls).toEqual(['begin', 'cancel in tx', 'commit']);
    const missing = service({ softDelete: jest.fn(async () => false) });
    await expect(missing.webhooks.delete(WEBHOOK.id)).rejects.toMatchObject({ code: ErrorCode.NotFound });
    expect(missing.repository.cancelPendingDeliveries).not.toHaveBeenCalled();
  });
});

describe('WebhooksService.rotateSecret', () => {
  it('stores a new secret sealed for the webhook and answers the view with it, once; the overlap defaults to 24 h', async () => {
    const { webhooks, repository, secrets } = service();
    const rotated = await webhooks.rotateSecret(WEBHOOK.id, {});
    expect(secrets.issue).toHaveBeenCalledWith(WEBHOOK.id);
    expect(repository.rotateSecret).toHaveBeenCalledWith(WEBHOOK.id, `sealed_for_${WEBHOOK.id}`, 86_400);
    expect(rotated).toEqual({ ...WEBHOOK, previousSecretExpiresAt: '2026-01-06T10:00:00.000Z', secret: `whsec_new_for_${WEBHOOK.id}` });
  });

  it('passes the overlap asked for, 0 included', async () => {
    const { webhooks, repository } = service();
    await webhooks.rotateSecret(WEBHOOK.id, { overlapSeconds: 0 });
    await webhooks.rotateSecret(WEBHOOK.id, { overlapSeconds: 604_800 });
    expect(repository.rotateSecret.mock.calls.map((call) => call[2])).toEqual([0, 604_800]);
  });

  it('a missing or deleted webhook is 404', async () => {
    const { webhooks } = service({ rotateSecret: jest.fn(async () => null) });
    await expect(webhooks.rotateSecret(WEBHOOK.id, {})).rejects.toMatchObject({ code: ErrorCode.NotFound });
  });
});

describe('WebhooksService.recover', () => {
  it('recovers the window [since, now) when until is absent, answering the count and the window', async () => {
    const { webhooks, repository } = service();
    const before = Date.now();
    const answer = await webhooks.recover(WEBHOOK.id, { since: '2026-01-05T10:00:00Z' });
    const [id, since, until] = repository.recoverFailed.mock.calls[0] as [string, Date, Date];
    expect([id, since.toISOString()]).toEqual([WEBHOOK.id, '2026-01-05T10:00:00.000Z']);
    expect(until.getTime()).toBeGreaterThanOrEqual(before);
    expect(answer).toEqual({ webhookId: WEBHOOK.id, recovered: 3, since: '2026-01-05T10:00:00.000Z', until: until.toISOString() });
  });

  it('a webhook that is not live and enabled: 404 when missing or deleted, 409 when disabled', async () => {
    const missing = service({ recoverFailed: jest.fn(async () => null), findLive: jest.fn(async () => null) });
    await expect(missing.webhooks.recover(WEBHOOK.id, { since: '2026-01-05T10:00:00Z' })).rejects.toMatchObject({ code: ErrorCode.NotFound });
    const disabled = service({ recoverFailed: jest.fn(async () => null), findLive: jest.fn(async () => ({ ...WEBHOOK, enabled: false })) });
    await expect(disabled.webhooks.recover(WEBHOOK.id, { since: '2026-01-05T10:00:00Z' })).rejects.toMatchObject({
      code: ErrorCode.InvalidStateTransition,
      message: `webhook ${WEBHOOK.id} is disabled: enable it before recovering its deliveries`,
    });
  });
});

describe('recoveryWindow', () => {
  const now = new Date('2026-11-29T12:00:00.000Z');
  const refused = (body: { since: string; until?: string }) => {
    try {
      recoveryWindow(body, now);
    } catch (err) {
      return err;
    }
    throw new Error('not refused');
  };

  it('until is the one given, or now when absent or later', () => {
    expect(recoveryWindow({ since: '2026-11-28T00:00:00Z', until: '2026-11-29T00:00:00+01:00' }, now)).toEqual({
      since: new Date('2026-11-28T00:00:00.000Z'),
      until: new Date('2026-11-28T23:00:00.000Z'),
    });
    expect(recoveryWindow({ since: '2026-11-28T00:00:00Z' }, now).until).toEqual(now);
    expect(recoveryWindow({ since: '2026-11-28T00:00:00Z', until: '2026-12-01T00:00:00Z' }, now).until).toEqual(now);
  });

  it('400 naming since when it does not come before until or is in the future', () => {
    expect(refused({ since: '2026-11-29T12:00:01Z' })).toMatchObject({
      code: ErrorCode.ValidationError, message: 'since is in the future', issues: [{ path: 'since', message: 'since is in the future' }],
    });
    expect(refused({ since: '2026-11-28T00:00:00Z', until: '2026-11-27T00:00:00Z' })).toMatchObject({
      code: ErrorCode.ValidationError, message: 'since must be before until', issues: [{ path: 'since', message: 'since must be before until' }],
    });
    expect(refused({ since: '2026-11-28T00:00:00Z', until: '2026-11-28T00:00:00Z' })).toMatchObject({ message: 'since must be before until' });
  });
});

describe('refusals', () => {
  it('a refused target names url and gives the reason', () => {
    const error = refusedUrl('url must use https');
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: ErrorCode.ValidationError, message: 'url must use https', issues: [{ message: 'url must use https', path: 'url' }] });
    // A reason that does not name the field is prefixed with it.
    expect(refusedUrl('the host resolves to a private address')).toMatchObject({
      message: 'url is refused: the host resolves to a private address',
      issues: [{ message: 'url is refused: the host resolves to a private address', path: 'url' }],
    });
  });

  it.each([
    [null, ErrorCode.NotFound, 'The delivery does not exist or is not visible to this API key.'],
    [{ status: 'pending', webhookEnabled: true, webhookDeleted: false }, ErrorCode.InvalidStateTransition, 'delivery dlv_1 is still being attempted'],
    [{ status: 'failed', webhookEnabled: false, webhookDeleted: false }, ErrorCode.InvalidStateTransition, 'delivery dlv_1 cannot be redelivered: its webhook is disabled'],
    [{ status: 'failed', webhookEnabled: true, webhookDeleted: true }, ErrorCode.InvalidStateTransition, 'delivery dlv_1 cannot be redelivered: its webhook is deleted'],
    [{ status: 'failed', webhookEnabled: true, webhookDeleted: false }, ErrorCode.InvalidStateTransition, 'delivery dlv_1 changed meanwhile; read it and retry'],
  ])('redelivery refused for %j: %s', (state, code, message) => {
    expect(redeliveryRefusal('dlv_1', state)).toMatchObject({ code, message });
  });
});
