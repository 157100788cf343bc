import { DispatcherMetrics } from './dispatcher-metrics';

/** A queue as registerQueueDepth reads it: counts by state and the oldest waiting job. */
function queueWith(counts: Record<string, number>, oldestWaitingAgeMs?: number) {
  return {
    name: 'webhook-deliveries',
    getJobCounts: async () => counts,
    getJobs: async () => (oldestWaitingAgeMs === undefined ? [] : [{ timestamp: Date.now() - oldestWaitingAgeMs }]),
  };
}

describe('DispatcherMetrics', () => {
  it('exports every delivery outcome from the start, and the scrape-time gauges from their sources', async () => {
    const metrics = new DispatcherMetrics();
    metrics.readFrom({ queue: queueWith({ waiting: 3, delayed: 2, active: 1, failed: 0, prioritized: 0 }, 90_000), relayLagSeconds: async () => 1.5, partitionsAheadSeconds: async () => 5_000_000 });
    metrics.delivery('succeeded');
    metrics.attempt('timeout', 10_000);
    const { body, contentType } = await metrics.exposition();
    expect(contentType).toContain('text/plain');
    expect(body).toContain('webhook_deliveries_total{outcome="succeeded"} 1');
    expect(body).toContain('webhook_deliveries_total{outcome="cancelled"} 0');
    expect(body).toContain('webhook_attempt_duration_seconds_count{outcome="timeout"} 1');
    expect(body).toContain('queue_jobs{queue="webhook-deliveries",state="waiting"} 3');
    expect(body).toContain('queue_jobs{queue="webhook-deliveries",state="delayed"} 2');
    expect(body).toMatch(/queue_oldest_waiting_seconds\{queue="webhook-deliveries"\} (89|9\d)(\.\d+)?\n/);
    expect(body).toContain('webhook_relay_lag_seconds 1.5');
    expect(body).toContain('db_partitions_ahead_seconds 5000000');
    expect(body).toContain('webhook_relay_events_total 0');
    expect(body).toContain('webhooks_auto_disabled_total 0');
    expect(body).toContain('process_cpu_seconds_total');
  });

  it('an empty queue has no oldest waiting job: 0', async () => {
    const metrics = new DispatcherMetrics();
    metrics.readFrom({ queue: queueWith({ waiting: 0 }), relayLagSeconds: async () => 0, partitionsAheadSeconds: async () => 0 });
    expect((await metrics.exposition()).body).toContain('queue_oldest_waiting_seconds{queue="webhook-deliveries"} 0\n');
  });

  it('a source that fails leaves its gauges out of that scrape instead of failing it', async () => {
    const metrics = new DispatcherMetrics();
    const down = async () => {
      throw new Error('redis down');
    };
    metrics.readFrom({ queue: { name: 'webhook-deliveries', getJobCounts: down, getJobs: down }, relayLagSeconds: async () => 0, partitionsAheadSeconds: async () => 0 });
    const { body } = await metrics.exposition();
    expect(body).toContain('webhook_relay_lag_seconds 0');
    expect(body).not.toMatch(/^queue_jobs\{/m);
    expect(body).not.toMatch(/^queue_oldest_waiting_seconds\{/m);
  });
});
