import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { SecretBox, SecretBoxError } from './secret-box';

const KEY = Buffer.alloc(32, 1);
const OLD_KEY = Buffer.alloc(32, 2);
const SECRET = 'whsec_' + 'Q'.repeat(43);
const CTX = 'webhook:whk_01';

/** Flips one bit of the packed bytes at `index` (negative counts from the end). */
function tamper(sealed: string, index: number): string {
  const [version, keyId, payload] = sealed.split('.');
  const bytes = Buffer.from(payload, 'base64url');
  bytes[index < 0 ? bytes.length + index : index] ^= 0x01;
  return `${version}.${keyId}.${bytes.toString('base64url')}`;
}

describe('SecretBox', () => {
  const box = new SecretBox(KEY);

  it('seals as v2.<key id>.<base64url(iv | ciphertext | tag)> and opens it again', () => {
    const sealed = box.seal(SECRET, CTX);
    const keyId = createHash('sha256').update(KEY).digest('hex').slice(0, 8);
    expect(sealed).toMatch(new RegExp(`^v2\\.${keyId}\\.[A-Za-z0-9_-]+$`));
    // 12 bytes of IV, one ciphertext byte per plaintext byte (GCM is a stream mode), 16 bytes of tag.
    expect(Buffer.from(sealed.split('.')[2], 'base64url')).toHaveLength(12 + SECRET.length + 16);
    expect(sealed).not.toContain(SECRET);
    expect(box.open(sealed, CTX)).toBe(SECRET);
  });

  it('round-trips text that is not ASCII, and the empty string', () => {
    expect(box.open(box.seal('clé ✓ 🔑', CTX), CTX)).toBe('clé ✓ 🔑');
    expect(box.open(box.seal('', CTX), CTX)).toBe('');
  });

  it('uses a new IV for every seal', () => {
    const first = box.seal(SECRET, CTX);
    const second = box.seal(SECRET, CTX);
    expect(first).not.toBe(second);
    expect(first.split('.')[2].slice(0, 16)).not.toBe(second.split('.')[2].slice(0, 16));
  });

  it.each([
    ['a ciphertext byte', 12],
    ['the tag', -1],
    ['the IV', 0],
  ])('refuses a sealed secret whose %s was changed', (_what, index) => {
    const tampered = tamper(box.seal(SECRET, CTX), index);
    expect(() => box.open(tampered, CTX)).toThrow(SecretBoxError);
    expect(() => box.open(tampered, CTX)).toThrow('sealed secret failed authentication');
  });

  it.each([
    ['no version', 'abc'],
    ['another version', box.seal(SECRET, CTX).replace(/^v2/, 'v3')],
    ['a malformed key id', box.seal(SECRET, CTX).replace(/^v2\.[0-9a-f]{8}/, 'v2.XYZ')],
    ['characters outside base64url', `${box.seal(SECRET, CTX)}=`],
    ['too few bytes for IV and tag', `v1.${box.seal(SECRET, CTX).split('.')[1]}.${Buffer.alloc(27).toString('base64url')}`],
  ])('refuses a sealed secret with %s', (_what, sealed) => {
    expect(() => box.open(sealed, CTX)).toThrow(SecretBoxError);
  });

  it('keeps the plaintext and the key out of its messages', () => {
    const message = (() => {
      try {
        box.open(tamper(box.seal(SECRET, CTX), 20), CTX);
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })();
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain(KEY.toString('base64'));
    expect(message).not.toContain(KEY.toString('hex'));
  });

  it('opens what a previous key sealed, and says it needs resealing', () => {
    const sealedWithOld = new SecretBox(OLD_KEY).seal(SECRET, CTX);
    const rotated = new SecretBox(KEY, [OLD_KEY]);
    expect(rotated.open(sealedWithOld, CTX)).toBe(SECRET);
    expect(rotated.needsResealing(sealedWithOld)).toBe(true);
    const resealed = rotated.seal(rotated.open(sealedWithOld, CTX), CTX);
    expect(rotated.needsResealing(resealed)).toBe(false);
    expect(resealed.split('.')[1]).toBe(box.seal('x', CTX).split('.')[1]);
  });

  it('refuses a key it does not have, naming only its id', () => {
    const other = Buffer.alloc(32, 3);
    const sealed = new SecretBox(other).seal(SECRET, CTX);
    const otherId = createHash('sha256').update(other).digest('hex').slice(0, 8);
    expect(() => box.open(sealed, CTX)).toThrow(new SecretBoxError(`sealed secret uses key ${otherId}, which is neither the current nor a previous key`));
    expect(box.needsResealing(sealed)).toBe(false);
    expect(box.needsResealing('garbage')).toBe(false);
  });

  it('binds a sealed secret to its context: copied to another webhook, it does not open', () => {
    const sealed = box.seal(SECRET, 'webhook:whk_A');
    expect(box.open(sealed, 'webhook:whk_A')).toBe(SECRET);
    expect(() => box.open(sealed, 'webhook:whk_B')).toThrow('sealed secret failed authentication');
  });

  it('opens a v1 secret sealed before contexts (unbound), and says it needs resealing', () => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', KEY, iv);
    const packed = Buffer.concat([iv, cipher.update(SECRET, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    const legacy = `v1.${box.seal('x', CTX).split('.')[1]}.${packed.toString('base64url')}`;
    expect(box.open(legacy, 'webhook:any')).toBe(SECRET);
    expect(box.needsResealing(legacy)).toBe(true);
    expect(box.needsResealing(box.seal(SECRET, CTX))).toBe(false);
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow('a secret box key must be 32 bytes');
    expect(() => new SecretBox(KEY, [randomBytes(31)])).toThrow('a secret box key must be 32 bytes');
  });
});
