import { Parser } from 'pg-protocol/dist/parser';
import { DataRowMessage, type BackendMessage, type RowDescriptionMessage } from 'pg-protocol/dist/messages';
import { types } from 'pg';

const DATA_ROW = 0x44; // 'D'
const ROW_DESCRIPTION = 0x54; // 'T'
const READY_FOR_QUERY = 0x5a; // 'Z'

/** Which columns of the rows being read came in binary format; absent when none did (the usual case). */
const BINARY_COLUMNS = Symbol('binaryColumns');

type HandlePacket = (offset: number, code: number, length: number, bytes: Buffer) => BackendMessage;
interface PatchedParser {
  handlePacket: HandlePacket;
  [BINARY_COLUMNS]?: boolean[];
}

let installed = false;

/** Whether readBinaryColumnsAsBytes was installed in this process (the runtime patch `pg-binary-columns`). */
export function binaryColumnsReadAsBytes(): boolean {
  return installed;
}

/**
 * Lets a query read its columns as the bytes Postgres sent (`binary: true`): the text of a `text`
 * column in binary format is its UTF-8 bytes, so a page of JSON Postgres serialised goes from
 * the socket to the reply without being decoded into a string and encoded again. That decode and
 * encode were a third of api-core's CPU per debtor page (bench/results/read-baseline-2026-11-27.md).
 *
 * pg-protocol (1.16.1, the newest) decodes every DataRow field as UTF-8 text, even where the row
 * description says the column is in binary format, and pg's Result turns that string back into a
 * Buffer: non-text binary values come back corrupted (reported upstream, still open; the proposed
 * fixes were closed unmerged). This wraps the parser's `handlePacket` the way one of them changed
 * it: after a row description with binary columns, those fields of each row are handed
 * over as their bytes, the others decoded as before. pg's Result copies the bytes of object rows;
 * it does not for `rowMode: 'array'`, which must not be combined with `binary` (Prisma, the only
 * user of array rows here, never asks for binary columns). Rows of queries without binary
 * columns (all of Prisma's, every other query here) take the original code after one property
 * check. Idempotent. `apps/api-core/test/rows-as-bytes.e2e-spec.ts` checks it against a real
 * server and fails if a pg-protocol upgrade changes what it wraps.
 */
export function readBinaryColumnsAsBytes(): void {
  if (installed) return;
  installed = true;
  const proto = Parser.prototype as unknown as PatchedParser;
  const original = proto.handlePacket;
  proto.handlePacket = function (this: PatchedParser, offset, code, length, bytes) {
    const binary = this[BINARY_COLUMNS];
    if (code === DATA_ROW && binary) return dataRow(offset, length, bytes, binary);
    const message = original.call(this, offset, code, length, bytes);
    if (code === ROW_DESCRIPTION) this[BINARY_COLUMNS] = binaryColumnsOf(message as RowDescriptionMessage);
    else if (code === READY_FOR_QUERY) this[BINARY_COLUMNS] = undefined;
    return message;
  };
}

function binaryColumnsOf(description: RowDescriptionMessage): boolean[] | undefined {
  const binary = description.fields.map((field) => field.format === 'binary');
  return binary.includes(true) ? binary : undefined;
}

/** A DataRow ('D': int16 count, then per field int32 length, -1 for null, and the bytes). */
function dataRow(offset: number, length: number, bytes: Buffer, binary: boolean[]): DataRowMessage {
  let at = offset;
  const count = bytes.readInt16BE(at);
  at += 2;
  const fields: unknown[] = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    const size = bytes.readInt32BE(at);
    at += 4;
    if (size === -1) {
      fields[i] = null;
      continue;
    }
    // A view of the parser's buffer, which it reuses for later chunks from the socket: pg's Result
    // copies each binary value into a Buffer of its own (`parseRow`) before the next chunk is read.
    fields[i] = binary[i] ? bytes.subarray(at, at + size) : bytes.toString('utf8', at, at + size);
    at += size;
  }
  return new DataRowMessage(length, fields);
}

const asBytes = (value: unknown) => value;

/**
 * Without the patch, the same Buffers the slow way: the columns are read as text and each value
 * encoded back into its UTF-8 bytes (what a text or JSON column's binary format is).
 */
export const BYTES_FROM_TEXT_COLUMNS = {
  getTypeParser: () => (text: string) => Buffer.from(text, 'utf8'),
};

/**
 * The `types` of a query read with `binary: true`: every binary column is left as its Buffer (pg's
 * own binary parsers expect the string pg-protocol would have decoded), text columns parsed as usual.
 */
export const BYTES_FOR_BINARY_COLUMNS = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => (format === 'binary' ? asBytes : types.getTypeParser(oid, 'text')),
};
