import type { FastifyInstance } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../../..');

/**
 * The API reference for humans at /docs (Redoc, rendered at build time by `npm run docs:html`,
 * no external scripts) and the OpenAPI document at /docs/openapi.json. Outside /public on purpose:
 * the spec's public interface stays exactly as specified.
 */
export function registerDocsRoutes(app: FastifyInstance): void {
  const documentPath = path.join(ROOT, 'docs/openapi.json');
  const htmlPath = path.join(ROOT, 'dist/docs/index.html');
  const document = existsSync(documentPath) ? readFileSync(documentPath) : null;
  const html = existsSync(htmlPath) ? readFileSync(htmlPath) : null;
  app.get('/docs/openapi.json', async (_request, reply) =>
    document ? reply.header('content-type', 'application/json; charset=utf-8').send(document) : reply.status(404).send({ Message: 'not built' }),
  );
  app.get('/docs', async (_request, reply) =>
    html ? reply.header('content-type', 'text/html; charset=utf-8').send(html) : reply.status(404).send({ Message: 'run npm run build' }),
  );
}
