import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { REPO_ROOT } from './service-process';

/** Where the compose deployment's Prometheus and Grafana files live (docs/observability.md). */
export const OBSERVABILITY_DIR = path.join(REPO_ROOT, 'deploy/observability');

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface DashboardPanel {
  id: number;
  type: string;
  title: string;
  description?: string;
  targets?: Array<{ refId: string; expr: string; legendFormat?: string }>;
}

export function readAlertRules(): AlertRule[] {
  const doc = YAML.parse(readFileSync(path.join(OBSERVABILITY_DIR, 'prometheus/alerts.yml'), 'utf8')) as { groups: Array<{ name: string; rules: AlertRule[] }> };
  return doc.groups.flatMap((group) => group.rules);
}

export function readDashboard(): { uid: string; title: string; panels: DashboardPanel[] } {
  return JSON.parse(readFileSync(path.join(OBSERVABILITY_DIR, 'grafana/dashboards/debt-collection.json'), 'utf8')) as { uid: string; title: string; panels: DashboardPanel[] };
}

/** Every PromQL expression of the alert rules and the dashboard's panels. */
export function observabilityExpressions(): string[] {
  return [...readAlertRules().map((rule) => rule.expr), ...readDashboard().panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr))];
}

const PROMQL_KEYWORDS = new Set([
  ...['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'atan2', 'inf', 'nan'],
  // Aggregations, which may be followed by `by (…)` rather than by their parenthesis.
  ...['sum', 'avg', 'min', 'max', 'count', 'group', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile', 'count_values', 'limitk', 'limit_ratio'],
]);

/**
 * The metric names a PromQL expression reads: identifiers that are neither functions nor
 * aggregations (followed by `(`), keywords, label names (inside `{…}` or `by (…)`), durations or
 * Grafana variables. Enough for the expressions we write, not a PromQL parser.
 */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // label values and strings
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, '') // ranges and subqueries
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '$1') // label lists
    .replace(/\$\w+/g, ''); // Grafana variables
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const name = match[0];
    const next = stripped.slice(match.index + name.length).trimStart();
    if (next.startsWith('(') || PROMQL_KEYWORDS.has(name.toLowerCase())) continue;
    // A number's exponent or a duration unit is not a name (1e3, 5m): the character before is a digit.
    if (match.index > 0 && /[0-9.]/.test(stripped[match.index - 1])) continue;
    names.add(name);
  }
  return [...names];
}

/**
 * The sample names an exposition (Prometheus text format) declares, from its `# TYPE` lines, so a
 * labelled metric counts before its first observation: a histogram or summary also declares its
 * `_bucket`, `_count` and `_sum` series.
 */
export function declaredMetricNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const match of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = match;
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) names.add(name + suffix);
    if (type === 'summary') for (const suffix of ['_count', '_sum']) names.add(name + suffix);
  }
  return names;
}
