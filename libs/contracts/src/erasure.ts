import { createHash } from 'node:crypto';

/**
 * Erased data subjects leave a tombstone (`debtor_erasures`) holding only this hash of their
 * externalId, exactly as the client sent it — enough to refuse re-creation (`erased_subject`)
 * without keeping the identifier itself.
 */
export function erasureHash(externalId: string): string {
  return createHash('sha256').update(externalId, 'utf8').digest('hex');
}
