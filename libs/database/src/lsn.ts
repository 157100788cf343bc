/**
 * WAL positions (`pg_lsn`), as Postgres prints them: two hexadecimal halves, `16/B374D848`. Read
 * replicas compare them (docs/adr/0050): a replica whose `pg_last_wal_replay_lsn()` is at or past a
 * write's commit position shows that write.
 */

const LSN = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** The position as a number that compares; throws on anything that is not an LSN. */
export function lsnValue(lsn: string): bigint {
  const match = LSN.exec(lsn);
  if (!match) throw new Error(`not a WAL position: ${JSON.stringify(lsn)}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** The position as 16 hexadecimal digits: text that sorts as the positions do (kept in Redis, compared in Lua). */
export function lsnKey(lsn: string | bigint): string {
  const value = typeof lsn === 'bigint' ? lsn : lsnValue(lsn);
  return value.toString(16).padStart(16, '0');
}

/** The inverse of `lsnKey`. */
export function lsnFromKey(key: string): bigint {
  if (!/^[0-9a-f]{16}$/.test(key)) throw new Error(`not a WAL position key: ${JSON.stringify(key)}`);
  return BigInt(`0x${key}`);
}

/** The position in Postgres's own notation (for logs and SQL). */
export function lsnText(value: bigint): string {
  return `${(value >> 32n).toString(16).toUpperCase()}/${(value & 0xffffffffn).toString(16).toUpperCase()}`;
}
