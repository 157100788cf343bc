const crypto = require('node:crypto');

/**
 * Verifies a delivery's X-Service-Signature and returns the parsed event; throws when it is not
 * authentic. rawBody: the exact bytes received (a Buffer), before any JSON parsing.
 */
function verifyWebhook(rawBody, signatureHeader, secret, toleranceSeconds = 300, nowSeconds = Math.floor(Date.now() / 1000)) {
  let t;
  const signatures = [];
  for (const part of String(signatureHeader ?? '').split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const [key, value] = [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    if (key === 't') t = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (!Number.isInteger(t) || signatures.length === 0) throw new Error('malformed X-Service-Signature');
  if (Math.abs(nowSeconds - t) > toleranceSeconds) throw new Error('timestamp outside the tolerance');
  // Keyed with the UTF-8 bytes of the whole secret, whsec_ included.
  const expected = crypto.createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  // While a secret rotation overlaps there is one v1 per secret: any one matching is enough.
  if (!signatures.some((v1) => crypto.timingSafeEqual(expected, v1))) throw new Error('signature mismatch');
  return JSON.parse(rawBody.toString('utf8'));
}

module.exports = { verifyWebhook };
