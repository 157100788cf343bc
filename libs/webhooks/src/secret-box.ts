import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Webhook secrets at rest (docs/adr/0020): signing needs the plaintext, so the secret is encrypted,
 * not hashed. AES-256-GCM with a random 96-bit IV per seal; the key comes from configuration
 * (WEBHOOK_SECRET_KEY), and previous keys keep opening old ciphertexts during a rotation.
 *
 * Format: `v1.<keyId>.<base64url(iv | ciphertext | tag)>`, keyId = first 8 hex digits of SHA-256(key).
 */

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED_PATTERN = /^v1\.([0-9a-f]{8})\.([A-Za-z0-9_-]+)$/;

/** A sealed secret that cannot be opened. Messages never carry the plaintext or a key. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

export class SecretBox {
  private readonly keyId: string;
  private readonly keys = new Map<string, Buffer>();

  /** 32-byte keys; previousKeys still open old ciphertexts (key rotation). */
  constructor(
    private readonly key: Buffer,
    previousKeys: Buffer[] = [],
  ) {
    this.keyId = this.add(key);
    for (const previous of previousKeys) this.add(previous);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = cipher.update(plaintext, 'utf8');
    const final = cipher.final();
    const packed = Buffer.concat([iv, ciphertext, final, cipher.getAuthTag()]);
    return `${VERSION}.${this.keyId}.${packed.toString('base64url')}`;
  }

  /** Picks the key by keyId among current + previous; SecretBoxError on unknown key, bad format or tampering. */
  open(sealed: string): string {
    const match = typeof sealed === 'string' ? SEALED_PATTERN.exec(sealed) : null;
    if (!match) throw new SecretBoxError('sealed secret has an unknown format (expected v1.<keyId>.<base64url>)');
    const key = this.keys.get(match[1]);
    if (!key) throw new SecretBoxError(`sealed secret uses key ${match[1]}, which is neither the current nor a previous key`);
    const packed = Buffer.from(match[2], 'base64url');
    if (packed.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('sealed secret is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, packed.subarray(0, IV_BYTES));
    decipher.setAuthTag(packed.subarray(packed.length - TAG_BYTES));
    try {
      const head = decipher.update(packed.subarray(IV_BYTES, packed.length - TAG_BYTES));
      return Buffer.concat([head, decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed secret failed authentication: it was altered or sealed with another key of the same id');
    }
  }

  /** True when sealed with a previous key: seal it again with the current one. */
  needsResealing(sealed: string): boolean {
    const match = typeof sealed === 'string' ? SEALED_PATTERN.exec(sealed) : null;
    return !!match && match[1] !== this.keyId && this.keys.has(match[1]);
  }

  private add(key: Buffer): string {
    if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) throw new SecretBoxError(`a secret box key must be ${KEY_BYTES} bytes`);
    const id = createHash('sha256').update(key).digest('hex').slice(0, 8);
    const known = this.keys.get(id);
    // Two different keys with one id (a 1 in 2^32 chance) would make `open` try the wrong one.
    if (known && !known.equals(key)) throw new SecretBoxError(`two different secret box keys share the id ${id}: generate another key`);
    if (!known) this.keys.set(id, key);
    return id;
  }
}
