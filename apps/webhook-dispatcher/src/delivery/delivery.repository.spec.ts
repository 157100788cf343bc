import { webhookHealth } from './delivery.repository';

describe('webhookHealth', () => {
  it('one entry per webhook, in id order: a success among its attempts clears, failures alone set failing_since', () => {
    expect(webhookHealth([
      { webhookId: 'whk_b', outcome: 'retry' },
      { webhookId: 'whk_a', outcome: 'failed' },
      { webhookId: 'whk_b', outcome: 'succeeded' },
      { webhookId: 'whk_c', outcome: 'succeeded' },
      { webhookId: 'whk_a', outcome: 'retry' },
      { webhookId: 'whk_b', outcome: 'failed' },
    ])).toEqual([
      { webhookId: 'whk_a', succeeded: false },
      { webhookId: 'whk_b', succeeded: true },
      { webhookId: 'whk_c', succeeded: true },
    ]);
    expect(webhookHealth([])).toEqual([]);
  });
});
