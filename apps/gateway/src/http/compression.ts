import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import { constants } from 'node:zlib';

/**
 * Bodies up to this size are compressed in one synchronous call. The plugin's default on 2 cores
 * (8 KiB) sent every list page (~55 KB) through a zlib stream per response, which cost the gateway
 * 3.1× the CPU of an uncompressed page with brotli and 1.9× with gzip (bench:baseline), for work
 * that takes 0.1–0.4 ms in one call; the largest page (100 debtors, ~110 KB) stays far below.
 */
const SYNC_UP_TO_BYTES = 512 * 1024;

/**
 * Response compression by Accept-Encoding (docs/adr/0024): brotli at quality 4 (the plugin's
 * default; 11 costs ~10× the CPU for a few % fewer bytes) with a 256 KiB window (the default 4 MiB
 * window is allocated per response, and our bodies are smaller) or gzip, for JSON and text of at
 * least `minBytes`. A list page of 50 debtors shrinks ~30×. Request bodies are never decompressed:
 * a compressed body could expand past the size limits that were checked on its compressed bytes.
 */
export async function registerCompression(fastify: FastifyInstance, minBytes: number): Promise<void> {
  if (minBytes <= 0) return;
  await fastify.register(compress, {
    global: true,
    globalDecompression: false,
    encodings: ['br', 'gzip'],
    threshold: minBytes,
    syncThreshold: SYNC_UP_TO_BYTES,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_LGWIN]: 18 } },
  });
}
