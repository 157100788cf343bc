import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * Response compression by Accept-Encoding (docs/adr/0024): brotli at quality 4 (the plugin's
 * default; 11 costs ~10× the CPU for a few % fewer bytes) or gzip, for JSON and text of at least
 * `minBytes`. A list page of 50 debtors shrinks ~25×. Request bodies are never decompressed: a
 * compressed body could expand past the size limits that were checked on its compressed bytes.
 */
export async function registerCompression(fastify: FastifyInstance, minBytes: number): Promise<void> {
  if (minBytes <= 0) return;
  await fastify.register(compress, {
    global: true,
    globalDecompression: false,
    encodings: ['br', 'gzip'],
    threshold: minBytes,
  });
}
