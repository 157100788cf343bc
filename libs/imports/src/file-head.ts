import { ImportLimits } from '@dc/contracts';
import { CsvError, parse } from 'csv-parse';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { csvOptions } from './csv-dialect';

/** What the first records of a file say (POST …/imports/preview). */
export interface FileHead {
  bom: boolean;
  /** The first data records, at most `rows`, their cells as parsed (not trimmed). */
  sampleRows: string[][];
  /** Data records of the file: counted when the whole file was read, else estimated from its size. */
  rowCount: number;
  rowCountEstimated: boolean;
  /** The bytes read were not all UTF-8. */
  invalidUtf8: boolean;
  /** Why the sample stopped short of `rows`, when the file could not be read as CSV there. */
  unreadable: string | null;
}

export interface HeadOptions {
  /** Data records to sample. */
  rows: number;
  /** The file's size, for the estimate. */
  fileBytes: number;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Reads the start of `stream` — the header and `rows` records, never more than one record past them
 * (each at most ImportLimits.maxRecordBytes) — with the importer's CSV options, then destroys it:
 * a 1 GiB file costs what its first records cost. The row count is exact when the file ended within
 * what was read; otherwise the data bytes over the sample's bytes per record.
 */
export async function readHead(stream: Readable, delimiter: string, { rows, fileBytes }: HeadOptions): Promise<FileHead> {
  let bom: boolean | undefined;
  let invalidUtf8 = false;
  let decoder = new TextDecoder('utf-8', { fatal: true });
  // The bytes as they pass to the parser: their start (a BOM?) and whether they are UTF-8.
  async function* watched(): AsyncGenerator<Buffer> {
    for await (const chunk of stream) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      bom ??= buf.subarray(0, 3).equals(BOM);
      if (!invalidUtf8) {
        try {
          decoder.decode(buf, { stream: true });
        } catch {
          invalidUtf8 = true;
          decoder = new TextDecoder('utf-8', { fatal: true });
        }
      }
      yield buf;
    }
  }
  const source = Readable.from(watched());
  const parser = parse({ ...csvOptions(delimiter), info: true });
  // Stopping early destroys the streams: the pipeline's premature close is expected, never an unheard 'error'.
  const piping = pipeline(source, parser).catch(() => undefined);
  const sampleRows: string[][] = [];
  let headerBytes = 0;
  let lastBytes = 0;
  let ended = true;
  let unreadable: string | null = null;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { bytes: number } }>) {
      if (headerBytes === 0) {
        headerBytes = info.bytes;
        continue;
      }
      if (sampleRows.length === rows) {
        // One record past the sample: the file goes on.
        ended = false;
        break;
      }
      sampleRows.push(record);
      lastBytes = info.bytes;
    }
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    ended = false;
    unreadable =
      err.code === 'CSV_MAX_RECORD_SIZE'
        ? `record ${sampleRows.length + 2} is longer than ${ImportLimits.maxRecordBytes} bytes (an unclosed quote?): the load would fail there`
        : `the file cannot be read as CSV from record ${sampleRows.length + 2} on: ${err.message}`;
  } finally {
    parser.destroy();
    source.destroy();
    stream.destroy();
    await piping;
  }
  if (ended || sampleRows.length === 0) return { bom: bom ?? false, sampleRows, rowCount: sampleRows.length, rowCountEstimated: !ended, invalidUtf8, unreadable };
  const perRecord = (lastBytes - headerBytes) / sampleRows.length;
  const estimate = Math.max(sampleRows.length + 1, Math.round((fileBytes - headerBytes) / perRecord));
  return { bom: bom ?? false, sampleRows, rowCount: estimate, rowCountEstimated: true, invalidUtf8, unreadable };
}
