import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { MAX_LOG_BUFFER_BYTES } from '@dc/config';
import { createLogger } from './logger';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createLogger: writes gathered before they reach stdout (LOG_BUFFER_BYTES)', () => {
  let dir: string;
  let file: string;
  const lines = () => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { msg: string; service: string; n?: number });

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dc-logger-'));
    file = path.join(dir, 'out.log');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('holds lines until the buffer fills, then writes them together, in order', async () => {
    const logger = createLogger('svc', 'info', { bufferBytes: 4096, flushIntervalMs: 60_000, destination: file });
    for (let n = 0; n < 3; n += 1) logger.info({ n }, 'request');
    await pause(50);
    expect(readFileSync(file, 'utf8')).toBe('');
    // ~90 bytes a line: 80 more pass 4 KiB; what filled the buffer is written, the rest waits.
    for (let n = 3; n < 83; n += 1) logger.info({ n }, 'request');
    await pause(50);
    const written = lines();
    expect(readFileSync(file).length).toBeGreaterThanOrEqual(4096);
    expect(written.length).toBeLessThan(83);
    expect(written.map((l) => l.n)).toEqual(Array.from({ length: written.length }, (_, n) => n));
    expect(written[0]).toMatchObject({ service: 'svc', msg: 'request', level: 'info' });
  });

  it("takes the largest buffer the configuration allows (pino's stream refuses one of its write size, 16 KiB)", async () => {
    const logger = createLogger('svc', 'info', { bufferBytes: MAX_LOG_BUFFER_BYTES, flushIntervalMs: 20, destination: file });
    logger.info('big buffer');
    await pause(200);
    expect(lines().map((l) => l.msg)).toEqual(['big buffer']);
  });

  it('writes gathered lines within the flush interval though the buffer is not full', async () => {
    const logger = createLogger('svc', 'info', { bufferBytes: 4096, flushIntervalMs: 20, destination: file });
    logger.info('one');
    logger.warn('two');
    await pause(200);
    expect(lines().map((l) => l.msg)).toEqual(['one', 'two']);
  });

  it('stops flushing once the stream is closed, without an error (pino closes it when the process runs out of work)', async () => {
    const logger = createLogger('svc', 'info', { bufferBytes: 4096, flushIntervalMs: 10, destination: file });
    logger.info('last');
    await pause(50);
    (logger as unknown as Record<symbol, { destroy(): void }>)[pino.symbols.streamSym].destroy();
    const uncaught: Error[] = [];
    const onError = (err: Error) => uncaught.push(err);
    process.on('uncaughtException', onError);
    await pause(60);
    process.off('uncaughtException', onError);
    expect(uncaught).toEqual([]);
    expect(lines().map((l) => l.msg)).toEqual(['last']);
  });

  it('writes each line at once with 0 (as the tests run the services)', async () => {
    const logger = createLogger('svc', 'info', { bufferBytes: 0, flushIntervalMs: 60_000, destination: file });
    logger.info('alone');
    await pause(50);
    expect(lines().map((l) => l.msg)).toEqual(['alone']);
  });
});
