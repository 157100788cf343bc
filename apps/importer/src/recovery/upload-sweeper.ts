import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@dc/observability';
import type { ObjectStorage } from '@dc/storage';
import { LOGGER, STORAGE } from '../importer.tokens';
import { ImportsRepository } from '../imports.repository';

/** How often expired uploads are looked for. */
const SWEEP_INTERVAL_MS = 5 * 60_000;
/** At start-up, uploads that expired within this long are swept (again: deleting a missing file is a no-op). */
const FIRST_SWEEP_WINDOW_MS = 7 * 24 * 3600_000;

/**
 * Removes stored files once they can no longer be used (docs/adr/0022): an upload's key is accepted
 * until it expires (docs/imports.md), so its file stays until then, and until the imports reading
 * it have ended (the import that ends last after the expiry removes it itself). Each pass takes the
 * uploads that expired since the previous one; several importers may sweep the same ones.
 */
@Injectable()
export class UploadSweeper {
  private timer?: NodeJS.Timeout;
  private pass?: Promise<unknown>;
  private since = new Date(Date.now() - FIRST_SWEEP_WINDOW_MS);

  constructor(
    private readonly imports: ImportsRepository,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  start(): void {
    void this.sweepOnce();
    this.timer = setInterval(() => void this.sweepOnce(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.pass;
  }

  /** One pass; returns how many files were deleted (failures are logged, and retried by the next pass). */
  async sweepOnce(): Promise<number> {
    const run = async () => {
      const started = new Date();
      const keys = await this.imports.expiredFiles(this.since);
      for (const key of keys) await this.storage.delete(key);
      // An upload expiring during this pass is taken by the next one (its expiry is after `since`).
      this.since = new Date(Math.min(started.getTime(), Date.now()) - 1_000);
      if (keys.length) this.logger.info({ deleted: keys.length }, 'expired uploads deleted');
      return keys.length;
    };
    const pass = run().catch((err: unknown) => {
      this.logger.warn({ err: (err as Error).message }, 'upload sweep failed');
      return 0;
    });
    this.pass = pass;
    return pass;
  }
}
