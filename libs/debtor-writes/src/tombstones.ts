import type { ErasureTombstones } from '@dc/contracts';
import type { Statement } from './statement';

/**
 * An erased data subject is never recreated (docs/adr/0025): a write that would create a debtor
 * reads the portfolio's tombstones among every value that would refuse its external id
 * (`ErasureTombstones.candidatesOf`), by key.
 */
export function tombstonesStatement(portfolioId: string, candidates: string[]): Statement {
  return {
    text: 'SELECT external_id_hash AS hash FROM debtor_erasures WHERE portfolio_id = $1 AND external_id_hash = ANY($2::text[])',
    values: [portfolioId, candidates],
  };
}

/** The external ids a found tombstone refuses. */
export function erasedAmong(tombstones: ErasureTombstones, externalIds: readonly string[], found: readonly { hash: string }[]): Set<string> {
  const hashes = new Set(found.map((f) => f.hash));
  return new Set(externalIds.filter((id) => tombstones.isErased(id, hashes)));
}
