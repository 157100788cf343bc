import type { Client } from 'pg';

/** What one execution of a statement cost. */
export interface PlanCost {
  /** Shared buffers, hit + read. */
  buffers: number;
  /** Rows its scans of `table` examined: returned, or removed by a filter or a recheck. */
  examined: number;
  /** The partitions of `table` whose scans ran (pruned ones do not), and those that returned rows (docs/adr/0051). */
  partitionsScanned: number;
  /** Their names. */
  partitions: string[];
  /**
   * Rows a Merge Append of the partitions' index scans read ahead: one from each partition with rows
   * but the one the page ended in, per merge and per loop.
   */
  readAhead: number;
  /** Whether `table` was read other than through an index (a Seq Scan or a Bitmap Heap Scan), or its rows sorted before the page's limit. */
  unordered: boolean;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Whether a scan's relation is `table` or one of its partitions (`<table>_p…`, docs/adr/0051). */
const scans = (node: PlanNode, table: string) => node['Relation Name'] === table || !!node['Relation Name']?.startsWith(`${table}_p`);

/** Rows the scans of `table` in the plan read, over all their loops. */
function examinedRows(node: PlanNode, table: string): number {
  const own = scans(node, table)
    ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * node['Actual Loops']
    : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + examinedRows(child, table), 0);
}

/** Every node of the plan. */
function nodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodes)];
}

/** The nodes under `node` down to the first Limit of each branch (what a Sort above it would sort whole). */
function unlimited(node: PlanNode): PlanNode[] {
  return (node.Plans ?? []).flatMap((child) => (child['Node Type'] === 'Limit' ? [] : [child, ...unlimited(child)]));
}

/**
 * One execution of `statement`, planned as Postgres plans a prepared statement (PREPARE + EXPLAIN
 * EXECUTE) under `plan_cache_mode` `mode`: `force_generic_plan` is the plan a prepared statement may
 * switch to after five executions, `force_custom_plan` one planned for its values. `SHOW_PLAN=1`
 * prints the plan.
 */
export async function planCost(
  client: Client,
  statement: { text: string; values: unknown[] },
  mode: 'force_generic_plan' | 'force_custom_plan',
  table: string,
): Promise<PlanCost> {
  const literal = (v: unknown): string =>
    v === null
      ? 'NULL'
      : Array.isArray(v)
        ? `ARRAY[${v.map(literal).join(', ')}]::text[]`
        : typeof v === 'number'
          ? String(v)
          : v instanceof Date
            ? client.escapeLiteral(v.toISOString())
            : client.escapeLiteral(String(v));
  await client.query(`SET plan_cache_mode = ${mode}`);
  await client.query(`PREPARE probe AS ${statement.text}`);
  try {
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE probe(${statement.values.map(literal).join(', ')})`);
    const plan = rows[0]['QUERY PLAN'][0].Plan;
    if (process.env.SHOW_PLAN) {
      const noise = ['Output', 'Startup Cost', 'Plan Width', 'Parallel Aware', 'Async Capable'];
      console.log(JSON.stringify(plan, (k, v) => (noise.includes(k) || /Local|Temp|Dirtied|Written/.test(k) ? undefined : v), 0));
    }
    const all = nodes(plan);
    const partitions = all.filter((n) => n['Relation Name']?.startsWith(`${table}_p`) && n['Actual Loops'] > 0);
    return {
      buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'],
      examined: examinedRows(plan, table),
      partitionsScanned: new Set(partitions.map((n) => n['Relation Name'])).size,
      partitions: [...new Set(partitions.map((n) => n['Relation Name'] as string))].sort(),
      readAhead: all
        .filter((n) => n['Node Type'] === 'Merge Append')
        .reduce((sum, n) => sum + Math.max(0, (n.Plans ?? []).filter((child) => scans(child, table) && child['Actual Rows'] > 0).length - 1) * n['Actual Loops'], 0),
      // A Sort of the merged, limited pages (several portfolios) is the page's own order, not this.
      unordered: all.some((n) =>
        (n['Node Type'] === 'Sort' && unlimited(n).some((below) => scans(below, table))) ||
        ((n['Node Type'] === 'Seq Scan' || n['Node Type'] === 'Bitmap Heap Scan') && scans(n, table))),
    };
  } finally {
    await client.query('DEALLOCATE probe');
  }
}

/** Shared buffers (hit + read) of one execution of `statement` (see planCost). */
export async function planBuffers(
  client: Client,
  statement: { text: string; values: unknown[] },
  mode: 'force_generic_plan' | 'force_custom_plan' = 'force_generic_plan',
): Promise<number> {
  return (await planCost(client, statement, mode, '')).buffers;
}
