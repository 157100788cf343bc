import { Inject, Injectable } from '@nestjs/common';
import { ErasureTombstones } from '@dc/contracts';
import type { Logger } from '@dc/observability';
import { LOGGER } from '../tokens';
import { DebtorsRepository } from './debtors.repository';

/** Tombstones rekeyed per statement. */
const PAGE = 1_000;

/**
 * Run by api-core's main once it serves, in the background: every legacy erasure tombstone (an
 * unsalted SHA-256 of an externalId, written before tombstones were keyed) is replaced by its HMAC under
 * ERASURE_HMAC_KEY (`ErasureTombstones.rekeyed`), so no stored tombstone can be tested against a
 * dictionary of ids without the key. Checks match both forms meanwhile (docs/adr/0025).
 */
@Injectable()
export class LegacyTombstoneRekeyer {
  constructor(
    private readonly debtors: DebtorsRepository,
    private readonly tombstones: ErasureTombstones,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Returns how many tombstones were rekeyed. */
  async rekeyAll(): Promise<number> {
    let rekeyed = 0;
    for (;;) {
      const legacy = await this.debtors.legacyTombstones(PAGE);
      if (!legacy.length) break;
      const done = await this.debtors.rekeyTombstones(legacy.map((t) => ({ ...t, rekeyed: this.tombstones.rekeyed(t.hash) })));
      rekeyed += done;
      // Another replica rekeyed the same page meanwhile: the next read finds what is left.
      if (done === 0 && legacy.length < PAGE) break;
    }
    if (rekeyed) this.logger.info({ rekeyed }, 'legacy erasure tombstones rekeyed');
    return rekeyed;
  }
}
