import { AppError, ErrorCode, WebhookView } from '@dc/contracts';
import type { AppConfig } from '@dc/config';
import type { Transactions, Tx } from '@dc/database';
import type { OrganizationsRepository } from '../organizations/organizations.repository';
import type { PortfoliosRepository } from '../portfolios/portfolios.repository';
import { PortfolioSelection } from '../portfolios/portfolio-selection';
import type { WebhookSecrets } from './webhook-secrets';
import type { WebhooksRepository } from './webhooks.repository';
import { redeliveryRefusal, refusedUrl, WebhooksService } from './webhooks.service';

const WEBHOOK: WebhookView = {
  id: 'whk_01JD0000000000000000000000',
  organizationId: 'org_01JD0000000000000000000000',
  url: 'https://93.184.216.34/hooks',
  portfolioIds: [],
  enabled: true,
  standardWebhooks: false,
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
    ...overrides,
  };
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
    {} as WebhookSecrets,
    transactions,
    config,
  );
  return { webhooks, repository, calls };
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
