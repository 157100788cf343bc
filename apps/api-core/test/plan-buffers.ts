import type { Client } from 'pg';

/**
 * Shared buffers (hit + read) of one execution of `statement`, planned as Postgres plans a prepared
 * statement (PREPARE + EXPLAIN EXECUTE) under `plan_cache_mode` `mode`: `force_generic_plan` is the
 * plan a prepared statement may switch to after five executions, `force_custom_plan` one planned
 * for its values. `SHOW_PLAN=1` prints the plan.
 */
export async function planBuffers(
  client: Client,
  statement: { text: string; values: unknown[] },
  mode: 'force_generic_plan' | 'force_custom_plan' = 'force_generic_plan',
): Promise<number> {
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
    return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
  } finally {
    await client.query('DEALLOCATE probe');
  }
}
