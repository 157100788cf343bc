import type { Client } from 'pg';

/** What one execution of a statement cost. */
export interface PlanCost {
  /** Shared buffers, hit + read. */
  buffers: number;
  /** Rows its scans of `table` examined: returned, or removed by a filter or a recheck. */
  examined: number;
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows the scans of `table` in the plan read, over all their loops. */
function examinedRows(node: PlanNode, table: string): number {
  const own = node['Relation Name'] === table
    ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * node['Actual Loops']
    : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + examinedRows(child, table), 0);
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
    return { buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'], examined: examinedRows(plan, table) };
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
