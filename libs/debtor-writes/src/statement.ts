/** A statement as `pg` and `Database.sqlTransaction` take it: its text with `$n` placeholders, and their values. */
export interface Statement {
  text: string;
  values: unknown[];
}

/**
 * The relation every builder reads the rows to write from: a FROM item named `u` whose columns are
 * the aliases of the field lists (DEBTOR_FIELDS, DEBT_FIELDS, …). The debtor batch builds it from
 * arrays (`unnestRows`), the import's merge from its staged rows folded per debtor and debt.
 */
export const ROW = 'u';

/**
 * A statement's parameters, numbered in the order they are added. Each of the batch's columns
 * travels as one array parameter, so a statement's text depends on its columns, never on its rows.
 */
export class Params {
  readonly values: unknown[] = [];

  /** `$n::type`, the placeholder of `value`. */
  add(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }

  statement(text: string): Statement {
    return { text, values: this.values };
  }
}

/**
 * How an update treats a field:
 * - `overwrite`: the value written is the one sent (a required field, always sent);
 * - `kept`: the value sent, or the stored one when the field is absent (null).
 */
export type FieldRule = 'overwrite' | 'kept';

/** A column of rows given as an array: its alias, its element type, one value per row (null: absent). */
export type ArrayColumn = readonly [alias: string, type: string, values: readonly unknown[]];

/** `unnest($1::text[], …) AS u(id, …)`: rows given column by column, one array parameter each. */
export function unnestRows(params: Params, columns: readonly ArrayColumn[]): string {
  const arrays = columns.map(([, type, values]) => params.add(values, `${type}[]`));
  return `unnest(${arrays.join(', ')}) AS ${ROW}(${columns.map(([alias]) => alias).join(', ')})`;
}

/**
 * What an UPDATE does with a row whose stored values already equal the new ones (docs/adr/0046).
 * - `rewrite`: writes it anyway — a new row version, `updated_at` moves to now.
 * - `skip`: leaves it — no tuple, no index entries, `updated_at` keeps meaning "last changed".
 * The outcome reported (the item's or row's `updated`) is the same either way.
 */
export type UnchangedRows = 'rewrite' | 'skip';

/** How an UPDATE reaches its rows and what it does with unchanged ones. */
export interface UpdateOptions {
  unchanged: UnchangedRows;
  /**
   * A `text[]` placeholder of the ids being updated. A join on `unnest` alone offers the planner no
   * key, so rows that come from arrays name their ids for the primary-key index (docs/adr/0040);
   * rows joined from a keyed table (the import's plan) need none.
   */
  ids?: string;
}

/**
 * `UPDATE <table> AS <alias> SET … FROM <rows> WHERE <alias>.id = u.id …`: the assignments, then
 * updated_at, restricted as `options` says.
 */
export function updateSql(table: string, alias: string, assignments: readonly (readonly [column: string, value: string])[], rows: string, options: UpdateOptions): string {
  const where = [`${alias}.id = ${ROW}.id`];
  if (options.ids) where.push(`${alias}.id = ANY(${options.ids})`);
  if (options.unchanged === 'skip') where.push(unchangedGuard(alias, assignments));
  return `UPDATE ${table} AS ${alias} SET
    ${assignments.map(([column, value]) => `${column} = ${value}`).join(',\n    ')},
    updated_at = now()
  FROM ${rows}
  WHERE ${where.join(' AND ')}`;
}

/** True for a row whose assignments would change something: `(stored…) IS DISTINCT FROM (new…)`. */
export function unchangedGuard(alias: string, assignments: readonly (readonly [column: string, value: string])[]): string {
  return `(${assignments.map(([column]) => `${alias}.${column}`).join(', ')}) IS DISTINCT FROM (${assignments.map(([, value]) => value).join(', ')})`;
}
