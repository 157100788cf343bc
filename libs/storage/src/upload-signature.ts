import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The local driver's upload URLs (docs/adr/0021): `expires` (unix seconds) and `signature`, the
 * lowercase hex HMAC-SHA256 of `<key>\n<expires>` keyed with STORAGE_SIGNING_KEY. The gateway's
 * upload route verifies them; the signature is the only credential of the PUT.
 */
export function signUpload(key: string, expires: number, keyBytes: Buffer): string {
  return createHmac('sha256', keyBytes).update(`${key}\n${expires}`, 'utf8').digest('hex');
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** Whether `signature` signs `key` and `expires` (says nothing of expiry). Constant time in the signature. */
export function verifyUpload(key: string, expires: number, signature: string, keyBytes: Buffer): boolean {
  if (!Number.isSafeInteger(expires) || expires < 0 || !HEX_SHA256.test(signature)) return false;
  return timingSafeEqual(Buffer.from(signUpload(key, expires, keyBytes), 'hex'), Buffer.from(signature, 'hex'));
}

/** `${publicBaseUrl}/public/uploads/<encoded key>?expires=&signature=`: where the gateway takes the PUT. */
export function localUploadUrl(publicBaseUrl: string, key: string, expires: number, keyBytes: Buffer): string {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return `${base}${LOCAL_UPLOAD_PATH}${encodeURIComponent(key)}?expires=${expires}&signature=${signUpload(key, expires, keyBytes)}`;
}

/** The gateway route's path prefix; the encoded key follows. */
export const LOCAL_UPLOAD_PATH = '/public/uploads/';
