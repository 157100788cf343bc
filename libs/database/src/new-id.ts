import { IdPrefix, ulid } from '@dc/contracts';

/** A new time-ordered id such as `dbt_01JD3…`; monotonic within the process. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
