import { ImportLimits } from '@dc/contracts';
import { parse, Options } from 'csv-parse';
import type { Readable } from 'node:stream';

/** Delimiters the importer recognises, in order of preference (docs/imports.md). */
export const CSV_DELIMITERS = [',', ';', '\t', '|'] as const;

/** The header line may be at most this long (bytes); a longer first line is not a CSV header. */
export const MAX_HEADER_BYTES = ImportLimits.maxHeaderBytes;

/** A file that cannot be read as the CSV the importer expects; the message is for the client. */
export class CsvFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CsvFileError';
  }
}

/**
 * The delimiter rule: the first of `,` `;` tab `|` that appears in the header line outside double
 * quotes (the header names no delimiter of its own); comma when none does (a one-column file).
 */
export function detectDelimiter(headerLine: string): string {
  let quoted = false;
  const seen = new Set<string>();
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (CSV_DELIMITERS as readonly string[]).includes(ch)) seen.add(ch);
  }
  return CSV_DELIMITERS.find((d) => seen.has(d)) ?? ',';
}

/**
 * csv-parse options of the importer: UTF-8 with or without BOM, RFC 4180 quoting ("" inside
 * quotes), CRLF or LF line ends, blank lines skipped. A record whose number of fields differs
 * from the header's is still emitted (relax_column_count): the importer refuses that row alone
 * rather than the whole file. Records are plain arrays: a record's number is its position among
 * the emitted records (blank lines are not records; the header is record 1), which the reader
 * counts itself — `info` would cost an object per record. A record longer than
 * ImportLimits.maxRecordBytes stops the parser (an unclosed quote would otherwise hold the rest of
 * the file in memory).
 */
export function csvOptions(delimiter: string): Options {
  return {
    bom: true,
    delimiter,
    encoding: 'utf8',
    skip_empty_lines: true,
    relax_column_count: true,
    max_record_size: ImportLimits.maxRecordBytes,
  };
}

/**
 * The header of the CSV read from the start of `stream` (which is then destroyed): its column
 * names and the detected delimiter. Throws CsvFileError when the file is empty, its first line is
 * not a header (no names, duplicate or empty names) or too long.
 */
export async function readHeader(stream: Readable): Promise<{ columns: string[]; delimiter: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      chunks.push(buf);
      size += buf.length;
      if (hasLineEnd(buf) || size >= MAX_HEADER_BYTES) break;
    }
  } finally {
    stream.destroy();
  }
  let text = Buffer.concat(chunks).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const end = firstLineEnd(text);
  if (end < 0 && size >= MAX_HEADER_BYTES) throw new CsvFileError(`the first line is longer than ${MAX_HEADER_BYTES} bytes: it is not a CSV header`);
  const line = end < 0 ? text : text.slice(0, end);
  if (!line.trim()) throw new CsvFileError('the file is empty: its first line must be the header (the column names)');
  const delimiter = detectDelimiter(line);
  const columns = await parseLine(line, delimiter);
  if (columns.length > ImportLimits.maxColumns) throw new CsvFileError(`the header has ${columns.length} columns, more than the limit of ${ImportLimits.maxColumns}`);
  const empty = columns.findIndex((c) => c.trim() === '');
  if (empty >= 0) throw new CsvFileError(`column ${empty + 1} of the header has no name`);
  const nul = columns.findIndex((c) => c.includes('\u0000'));
  if (nul >= 0) throw new CsvFileError(`column ${nul + 1} of the header contains a NUL character (U+0000), which cannot be stored`);
  const duplicate = columns.find((c, i) => columns.indexOf(c) !== i);
  if (duplicate !== undefined) throw new CsvFileError(`the header names the column "${duplicate}" twice`);
  return { columns, delimiter };
}

function hasLineEnd(buf: Buffer): boolean {
  return buf.includes(0x0a) || buf.includes(0x0d);
}

/** Index of the first line end outside double quotes, or -1. */
function firstLineEnd(text: string): number {
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) return i;
  }
  return -1;
}

function parseLine(line: string, delimiter: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    parse(line, { delimiter, bom: true }, (err, records: string[][]) => {
      if (err) reject(new CsvFileError(`the header is not valid CSV: ${err.message}`));
      else resolve(records[0] ?? []);
    });
  });
}
