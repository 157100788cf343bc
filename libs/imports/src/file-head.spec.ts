import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { readHead } from './file-head';

const fileOf = (text: string | Buffer, pieces = 7) => {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  // In small pieces, as storage streams it: records and characters cut anywhere.
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += pieces) parts.push(bytes.subarray(i, i + pieces));
  return { stream: Readable.from(parts), bytes: bytes.length };
};

describe('readHead', () => {
  it('a short file: every row sampled and counted exactly, a BOM noticed', async () => {
    const { stream, bytes } = fileOf('\uFEFFName;DNI\r\nAna;1\r\n"Luis; hijo";2\r\n');
    expect(await readHead(stream, ';', { rows: 10, fileBytes: bytes })).toEqual({
      bom: true, sampleRows: [['Ana', '1'], ['Luis; hijo', '2']], rowCount: 2, rowCountEstimated: false, invalidUtf8: false, unreadable: null,
    });
  });

  it('a long file: ten rows sampled, the count estimated from the size and the sample, the rest never read', async () => {
    const line = (i: number) => `Name ${String(i).padStart(6, '0')},${String(i).padStart(8, '0')}X\n`;
    const text = `name,doc\n${Array.from({ length: 50_000 }, (_, i) => line(i)).join('')}`;
    let pulled = 0;
    const chunks = Array.from({ length: Math.ceil(text.length / 1024) }, (_, i) => Buffer.from(text.slice(i * 1024, (i + 1) * 1024)));
    const stream = Readable.from((function* () { for (const c of chunks) { pulled += 1; yield c; } })());
    const head = await readHead(stream, ',', { rows: 10, fileBytes: Buffer.byteLength(text) });
    expect(head.sampleRows).toEqual(Array.from({ length: 10 }, (_, i) => [`Name ${String(i).padStart(6, '0')}`, `${String(i).padStart(8, '0')}X`]));
    expect(head).toMatchObject({ bom: false, rowCount: 50_000, rowCountEstimated: true, invalidUtf8: false, unreadable: null });
    // What the streams buffer (tens of KB), of a file of 1,075 such pieces.
    expect(chunks.length).toBe(1075);
    expect(pulled).toBeLessThan(100);
  });

  it('bytes that are not UTF-8 (a Windows-1252 export) are reported', async () => {
    const { stream, bytes } = fileOf(Buffer.concat([Buffer.from('Nombre,DNI\n'), Buffer.from([0x4a, 0x6f, 0x73, 0xe9]), Buffer.from(',1\n')]));
    expect(await readHead(stream, ',', { rows: 10, fileBytes: bytes })).toMatchObject({ invalidUtf8: true, rowCount: 1, rowCountEstimated: false });
  });

  it('a file that stops being CSV: the rows before, and why', async () => {
    const { stream, bytes } = fileOf('a,b\n1,2\n"3,4\n');
    const head = await readHead(stream, ',', { rows: 10, fileBytes: bytes });
    expect(head.sampleRows).toEqual([['1', '2']]);
    expect(head.unreadable).toMatch(/^the file cannot be read as CSV from record 3 on: /);
  });
});

describe('readHead, stopping early', () => {
  it('a file stream destroyed mid-file raises no unheard error (it crashed the process reading it)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'head-'));
    const file = path.join(dir, 'big.csv');
    writeFileSync(file, `name,doc\n${'Ana,1\n'.repeat(200_000)}`);
    const errors: unknown[] = [];
    const onError = (err: unknown) => errors.push(err);
    process.on('uncaughtException', onError);
    try {
      // As the local storage opens it (a FileHandle's stream).
      const source = (await open(file, 'r')).createReadStream();
      const head = await readHead(source, ',', { rows: 3, fileBytes: 1_200_009 });
      expect(head.sampleRows).toEqual([['Ana', '1'], ['Ana', '1'], ['Ana', '1']]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(errors).toEqual([]);
      expect(source.destroyed).toBe(true);
    } finally {
      process.off('uncaughtException', onError);
      rmSync(dir, { recursive: true });
    }
  });
});
