import { createHash, createHmac } from 'node:crypto';
import { ErasureTombstones, legacyErasureHash } from './erasure';

const KEY = Buffer.alloc(32, 1);
const tombstones = new ErasureTombstones(KEY);
const NFC = 'Jos\u00e9-12345678';
const NFD = 'Jose\u0301-12345678';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('ErasureTombstones (docs/adr/0025)', () => {
  it('the tombstone is HMAC-SHA256 with the key over the NFC form, never the plain SHA-256', () => {
    expect(NFC).not.toBe(NFD);
    expect(tombstones.tombstone(NFC)).toBe(createHmac('sha256', KEY).update(NFC, 'utf8').digest('hex'));
    expect(tombstones.tombstone(NFD)).toBe(tombstones.tombstone(NFC));
    expect(tombstones.tombstone(NFC)).not.toBe(sha256(NFC));
    expect(new ErasureTombstones(Buffer.alloc(32, 2)).tombstone(NFC)).not.toBe(tombstones.tombstone(NFC));
  });

  it('candidates: the HMAC, then the legacy SHA-256 of the id as given, NFC and NFD, rekeyed and as stored, without repeats', () => {
    expect(legacyErasureHash(NFD)).toBe(sha256(NFD));
    const rekeyed = (text: string) => createHmac('sha256', KEY).update(`sha256:${sha256(text)}`, 'utf8').digest('hex');
    expect(tombstones.rekeyed(sha256(NFC))).toBe(rekeyed(NFC));
    expect(tombstones.candidates(NFD)).toEqual([tombstones.tombstone(NFC), rekeyed(NFD), rekeyed(NFC), sha256(NFD), sha256(NFC)]);
    expect(tombstones.candidates('plain-1')).toEqual([tombstones.tombstone('plain-1'), rekeyed('plain-1'), sha256('plain-1')]);
    expect(tombstones.candidatesOf(['plain-1', 'plain-1', NFC])).toEqual([...tombstones.candidates('plain-1'), ...tombstones.candidates(NFC)]);
  });

  it('isErased: a keyed tombstone refuses every normalisation; a legacy one refuses the id in either form', () => {
    expect(tombstones.isErased(NFD, new Set([tombstones.tombstone(NFC)]))).toBe(true);
    expect(tombstones.isErased(NFC, new Set([legacyErasureHash(NFD)]))).toBe(true);
    expect(tombstones.isErased(NFD, new Set([legacyErasureHash(NFC)]))).toBe(true);
    expect(tombstones.isErased('other', new Set([tombstones.tombstone(NFC), legacyErasureHash(NFC)]))).toBe(false);
    expect(tombstones.isErased(NFC, new Set())).toBe(false);
    // A legacy tombstone once rekeyed still refuses the id in either form; without the key it is not the SHA-256.
    expect(tombstones.isErased(NFC, new Set([tombstones.rekeyed(legacyErasureHash(NFD))]))).toBe(true);
    expect(new ErasureTombstones(Buffer.alloc(32, 2)).isErased(NFC, new Set([tombstones.rekeyed(legacyErasureHash(NFC))]))).toBe(false);
  });

  it('refuses a short key', () => {
    expect(() => new ErasureTombstones(Buffer.alloc(16))).toThrow('at least 32 bytes');
  });
});
