import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Webhook secrets at rest (docs/adr/0020): signing needs the plaintext, so the secret is encrypted,
 * not hashed. AES-256-GCM with a random 96-bit IV per seal; the key comes from configuration
 * (WEBHOOK_SECRET_KEY), and previous keys keep opening old ciphertexts during a rotation.
 *
 * Format: `v2.<keyId>.<base64url(iv | ciphertext | tag)>`, keyId = first 8 hex digits of SHA-256(key).
 * v2 binds the ciphertext to a context (the webhook it belongs to) as GCM's associated data: copied
 * to another row, it no longer opens. v1 (no context, sealed before secrets were bound) still opens, unbound,
 * until it is sealed again (`needsResealing`).
 */

const VERSION = 'v2';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED_PATTERN = /^(v1|v2)\.([0-9a-f]{8})\.([A-Za-z0-9_-]+)$/;

/** A sealed secret that cannot be opened. Messages never carry the plaintext or a key. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/** The context a webhook's secret is sealed for: its ciphertext opens for this webhook only. */
export function webhookSecretContext(webhookId: string): string {
  return `webhook:${webhookId}`;
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

  /** Seals `plaintext` for `context` (e.g. `webhook:<id>`): only `open` with the same context opens it. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = cipher.update(plaintext, 'utf8');
    const final = cipher.final();
    const packed = Buffer.concat([iv, ciphertext, final, cipher.getAuthTag()]);
    return `${VERSION}.${this.keyId}.${packed.toString('base64url')}`;
  }

  /**
   * Picks the key by keyId among current + previous; SecretBoxError on unknown key, bad format,
   * tampering, or (v2) another context than the one it was sealed for.
   */
  open(sealed: string, context: string): string {
    const match = typeof sealed === 'string' ? SEALED_PATTERN.exec(sealed) : null;
    if (!match) throw new SecretBoxError('sealed secret has an unknown format (expected v2.<keyId>.<base64url>)');
    const [, version, keyId, body] = match;
    const key = this.keys.get(keyId);
    if (!key) throw new SecretBoxError(`sealed secret uses key ${keyId}, which is neither the current nor a previous key`);
    const packed = Buffer.from(body, 'base64url');
    if (packed.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('sealed secret is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, packed.subarray(0, IV_BYTES));
    if (version !== 'v1') decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(packed.subarray(packed.length - TAG_BYTES));
    try {
      const head = decipher.update(packed.subarray(IV_BYTES, packed.length - TAG_BYTES));
      return Buffer.concat([head, decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed secret failed authentication: it was altered, sealed for another webhook, or with another key of the same id');
    }
  }

  /** True when sealed with a previous key, or unbound (v1): seal it again with the current key and its context. */
  needsResealing(sealed: string): boolean {
    const match = typeof sealed === 'string' ? SEALED_PATTERN.exec(sealed) : null;
    return !!match && this.keys.has(match[2]) && (match[1] !== VERSION || match[2] !== this.keyId);
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
