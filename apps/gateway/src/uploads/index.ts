import type { AppConfig } from '@dc/config';
import type { Logger } from '@dc/observability';
import { LocalDiskStorage } from '@dc/storage';
import type { FastifyInstance } from 'fastify';
import { letUploadsPastListenerLimits } from './upload-connections';
import { registerUploadRoute } from './upload.route';

/**
 * The local storage driver's upload route on the public listener (docs/adr/0021). With
 * STORAGE_DRIVER=s3 clients upload straight to the bucket and nothing is registered.
 */
export async function registerUploads(app: FastifyInstance, config: AppConfig, logger: Logger): Promise<void> {
  if (config.storage.driver !== 'local') return;
  const storage = LocalDiskStorage.fromConfig(config);
  // Uploads would fail one by one; say so once at start-up (the rest of the API is unaffected).
  await storage.check().catch((err: Error) => logger.error({ dir: storage.dir, err: err.message }, 'upload directory is not writable'));
  registerUploadRoute(app, { storage, signingKey: config.storage.local.signingKey, maxFileBytes: config.imports.maxFileBytes, logger });
  letUploadsPastListenerLimits(app.server);
}
