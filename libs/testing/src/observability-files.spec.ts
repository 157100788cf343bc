import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { declaredMetricNames, metricNamesIn, OBSERVABILITY_DIR, observabilityExpressions, readAlertRules, readDashboard } from './observability-files';

const yamlOf = (file: string) => YAML.parse(readFileSync(path.join(OBSERVABILITY_DIR, file), 'utf8')) as Record<string, unknown>;

describe('metricNamesIn (the metric names of a PromQL expression)', () => {
  it('finds the metric names, not functions, keywords, labels, durations or variables', () => {
    expect(metricNamesIn('histogram_quantile(0.99, sum by (le, route) (rate(http_request_duration_seconds_bucket{listener="public", route!~"/a/b.*"}[$__rate_interval])))')).toEqual([
      'http_request_duration_seconds_bucket',
    ]);
    expect(
      metricNamesIn('sum(rate(a_total{outcome="failed"}[15m])) / sum(rate(b_total{outcome=~"x|y"}[15m])) > 0.1 and on (job) up == 0 or max without (instance) (c) > 1e3'),
    ).toEqual(['a_total', 'b_total', 'up', 'c']);
    expect(metricNamesIn('max by (queue) (queue_oldest_waiting_seconds) > 300')).toEqual(['queue_oldest_waiting_seconds']);
  });

  it('declaredMetricNames reads the # TYPE lines, with the series of histograms', () => {
    const names = declaredMetricNames('# HELP h x\n# TYPE h histogram\n# TYPE c_total counter\nc_total 1\n');
    expect([...names].sort()).toEqual(['c_total', 'h', 'h_bucket', 'h_count', 'h_sum']);
  });
});

describe('deploy/observability (structure; the metric names are checked against the apps in apps/gateway/test/observability.e2e-spec.ts)', () => {
  it('prometheus.yml scrapes the four apps on their metrics ports with the bearer token file, and loads the alert rules', () => {
    const config = yamlOf('prometheus/prometheus.yml') as {
      rule_files: string[];
      scrape_configs: Array<{ job_name: string; metrics_path: string; authorization: { type: string; credentials_file: string }; dns_sd_configs: Array<{ names: string[]; port: number }> }>;
    };
    expect(config.rule_files).toEqual(['alerts.yml']);
    const jobs = Object.fromEntries(config.scrape_configs.map((job) => [job.job_name, job]));
    const ports = { gateway: 3001, 'api-core': 3100, importer: 3101, 'webhook-dispatcher': 3102 };
    expect(Object.keys(jobs).sort()).toEqual(Object.keys(ports).sort());
    for (const [name, port] of Object.entries(ports)) {
      expect(jobs[name].metrics_path).toBe('/metrics');
      expect(jobs[name].authorization).toEqual({ type: 'Bearer', credentials_file: '/run/prometheus/metrics-token' });
      expect(jobs[name].dns_sd_configs).toEqual([expect.objectContaining({ names: [name], port })]);
    }
  });

  it('every alert rule has a name, an expression, a duration, a severity, a summary and a description', () => {
    const rules = readAlertRules();
    expect(rules.map((r) => r.alert)).toEqual(expect.arrayContaining(['PublicApiErrorRatioHigh', 'PublicApiLatencyP99High', 'QueueBacklog', 'WebhookDeliveriesFailing', 'ApiCoreShedding', 'AppDown']));
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
    for (const rule of rules) {
      expect(rule.expr.trim()).not.toBe('');
      expect(rule.for).toMatch(/^\d+[smh]$/);
      expect(['page', 'ticket']).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary).toBeTruthy();
      expect(rule.annotations?.description).toBeTruthy();
      // Balanced brackets: a typo that would make Prometheus refuse the whole file.
      for (const [open, close] of ['()', '{}', '[]']) expect(rule.expr.split(open).length).toBe(rule.expr.split(close).length);
    }
  });

  it('the dashboard: unique panel ids, every panel described, every query on the provisioned data source', () => {
    const dashboard = readDashboard();
    expect(dashboard.uid).toBe('debt-collection');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const charts = dashboard.panels.filter((p) => p.type !== 'row');
    expect(charts.length).toBeGreaterThanOrEqual(20);
    for (const panel of charts) {
      expect(panel.description).toBeTruthy();
      expect(panel.targets?.length).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        expect(target.expr.trim()).not.toBe('');
        expect((target as { datasource?: { uid: string } }).datasource?.uid).toBe('prometheus');
      }
    }
    const datasources = yamlOf('grafana/provisioning/datasources/prometheus.yml') as { datasources: Array<{ uid: string; url: string }> };
    expect(datasources.datasources).toEqual([expect.objectContaining({ uid: 'prometheus', url: 'http://prometheus:9090' })]);
    const providers = yamlOf('grafana/provisioning/dashboards/dashboards.yml') as { providers: Array<{ options: { path: string } }> };
    expect(providers.providers[0].options.path).toBe('/var/lib/grafana/dashboards');
  });

  it('the expressions read metrics at all (the names are what the e2e test compares with the apps)', () => {
    const names = new Set(observabilityExpressions().flatMap(metricNamesIn));
    expect([...names]).toEqual(expect.arrayContaining(['http_request_duration_seconds_count', 'queue_jobs', 'webhook_deliveries_total', 'import_rows_total', 'up']));
  });
});
