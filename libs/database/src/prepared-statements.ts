import { createHash } from 'node:crypto';
import type { QueryConfig } from 'pg';
import { binaryColumnsReadAsBytes, BYTES_FOR_BINARY_COLUMNS, BYTES_FROM_TEXT_COLUMNS } from './binary-columns';

/** A statement: its text with `$n` placeholders and their values (a `Prisma.Sql` is one). */
export interface SqlStatement {
  readonly text: string;
  readonly values: unknown[];
}

/**
 * The `pg` query configs of a pool's hot reads: each distinct SQL text is a named prepared
 * statement, planned once per connection and reused (measured: +27 % throughput on keyset pages);
 * the name is derived from the text, so every combination of optional filters is its own statement
 * with its own cached plan. The primary's pool and each replica's have one (docs/adr/0050).
 */
export class PreparedStatements {
  /** SQL text → statement name; bounded by the finite set of query shapes in the code. */
  private readonly names = new Map<string, string>();

  /** `named` false: unnamed statements (PgBouncer transaction pooling before 1.21, docs/adr/0033). */
  constructor(private readonly named: boolean) {}

  /**
   * The query's config, one object literal with all its fields: pg read a config built as
   * `{ ...config, binary, types }` 9 µs slower per query (a micro-benchmark of one-row reads).
   * `bytes`: every column read as the bytes Postgres sent (docs/adr/0038). `binary` (every result
   * column in binary format) is missing from @types/pg's QueryConfig.
   */
  config(query: SqlStatement, bytes: boolean): QueryConfig & { binary: boolean } {
    const text = query.text;
    const binary = bytes && binaryColumnsReadAsBytes();
    const types = binary ? BYTES_FOR_BINARY_COLUMNS : bytes ? BYTES_FROM_TEXT_COLUMNS : undefined;
    // Behind a transaction-pooling PgBouncer each query may land on another server connection.
    if (!this.named) return { text, values: query.values, binary, types };
    let name = this.names.get(text);
    if (!name) {
      name = `q_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      this.names.set(text, name);
    }
    return { name, text, values: query.values, binary, types };
  }
}
