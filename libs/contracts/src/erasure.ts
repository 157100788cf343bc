import { createHash, createHmac } from 'node:crypto';

/** How a `debtor_erasures.external_id_hash` was computed (its `scheme` column). */
export const ErasureScheme = {
  /** Every tombstone written now: HMAC-SHA256 keyed by ERASURE_HMAC_KEY over the NFC-normalised externalId. */
  Hmac: 'hmac-sha256',
  /**
   * Legacy, before tombstones were keyed: unsalted SHA-256 of the externalId as sent. Never written
   * again; api-core rekeys each one at start-up (LegacyRekeyed), so no unsalted hash stays stored.
   */
  LegacySha256: 'sha256',
  /** A legacy tombstone rekeyed, HMAC-SHA256 keyed by ERASURE_HMAC_KEY over its SHA-256. */
  LegacyRekeyed: 'hmac-sha256-of-sha256',
} as const;
export type ErasureScheme = (typeof ErasureScheme)[keyof typeof ErasureScheme];

/** Unsalted SHA-256 of the externalId exactly as given: the tombstones written before they were keyed (docs/adr/0025). */
export function legacyErasureHash(externalId: string): string {
  return createHash('sha256').update(externalId, 'utf8').digest('hex');
}

/**
 * Erased data subjects leave a tombstone (`debtor_erasures`) holding only a keyed hash of their
 * externalId — enough to refuse re-creation (`erased_subject`) without keeping the identifier, and
 * not reversible by hashing a dictionary of document-like ids without the key. Every writer
 * (debtor erasure) and checker (debtor batch, importer) goes through this class (docs/adr/0025).
 */
export class ErasureTombstones {
  constructor(private readonly key: Buffer) {
    if (key.length < 32) throw new Error('the erasure HMAC key must be at least 32 bytes');
  }

  /** The tombstone written at erasure: hex HMAC-SHA256 of the NFC form of the externalId. */
  tombstone(externalId: string): string {
    return createHmac('sha256', this.key).update(externalId.normalize('NFC'), 'utf8').digest('hex');
  }

  /** A legacy (unsalted SHA-256) tombstone rekeyed: only the key's holder can test an id against it. */
  rekeyed(legacyHash: string): string {
    return createHmac('sha256', this.key).update(`sha256:${legacyHash}`, 'utf8').digest('hex');
  }

  /**
   * Every tombstone value that refuses this externalId: the HMAC (any normalisation of the id
   * gives the same one), and for the legacy tombstones (which hashed the id as it was sent, in
   * whichever form that was) the SHA-256 of the id as given, of its NFC and of its NFD form, rekeyed
   * — and as stored before the start-up rekeying, until every replica has done it.
   */
  candidates(externalId: string): string[] {
    const forms = new Set([externalId, externalId.normalize('NFC'), externalId.normalize('NFD')]);
    const legacy = [...new Set([...forms].map(legacyErasureHash))];
    return [this.tombstone(externalId), ...legacy.map((hash) => this.rekeyed(hash)), ...legacy];
  }

  /** The candidates of many externalIds, deduplicated: the values to look up in `debtor_erasures`. */
  candidatesOf(externalIds: Iterable<string>): string[] {
    const all = new Set<string>();
    for (const id of externalIds) for (const hash of this.candidates(id)) all.add(hash);
    return [...all];
  }

  /** Whether the externalId is erased, given the tombstones found among `candidatesOf` its ids. */
  isErased(externalId: string, found: ReadonlySet<string>): boolean {
    return found.size > 0 && this.candidates(externalId).some((hash) => found.has(hash));
  }
}
