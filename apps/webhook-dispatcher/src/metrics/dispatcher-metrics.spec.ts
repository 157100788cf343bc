import { DispatcherMetrics } from './dispatcher-metrics';

describe('DispatcherMetrics', () => {
  it('exports every delivery outcome from the start, and the scrape-time gauges from their sources', async () => {
    const metrics = new DispatcherMetrics();
    metrics.readFrom({
      queueCounts: async () => ({ waiting: 3, delayed: 2, active: 1, failed: 0 }),
      relayLagSeconds: async () => 1.5,
    });
    metrics.delivery('succeeded');
    metrics.attempt('timeout', 10_000);
    const { body, contentType } = await metrics.exposition();
    expect(contentType).toContain('text/plain');
    expect(body).toContain('webhook_deliveries_total{outcome="succeeded"} 1');
    expect(body).toContain('webhook_deliveries_total{outcome="cancelled"} 0');
    expect(body).toContain('webhook_attempt_duration_seconds_count{outcome="timeout"} 1');
    expect(body).toContain('webhook_queue_jobs{state="waiting"} 3');
    expect(body).toContain('webhook_queue_jobs{state="delayed"} 2');
    expect(body).toContain('webhook_relay_lag_seconds 1.5');
    expect(body).toContain('webhook_relay_events_total 0');
  });

  it('a source that fails leaves its gauge out of that scrape instead of failing it', async () => {
    const metrics = new DispatcherMetrics();
    metrics.readFrom({
      queueCounts: async () => {
        throw new Error('redis down');
      },
      relayLagSeconds: async () => 0,
    });
    await expect(metrics.exposition()).resolves.toMatchObject({ body: expect.stringContaining('webhook_relay_lag_seconds 0') });
  });
});
