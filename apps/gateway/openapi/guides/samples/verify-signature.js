const crypto = require('node:crypto');

/**
 * Verifies a delivery's X-Service-Signature and returns the parsed event; throws when it is not
 * authentic. rawBody: the exact bytes received (a Buffer), before any JSON parsing.
 */
function verifyWebhook(rawBody, signatureHeader, secret, toleranceSeconds = 300, nowSeconds = Math.floor(Date.now() / 1000)) {
  const parts = Object.fromEntries(
    String(signatureHeader ?? '').split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    }),
  );
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) throw new Error('malformed X-Service-Signature');
  if (Math.abs(nowSeconds - t) > toleranceSeconds) throw new Error('timestamp outside the tolerance');
  // Keyed with the UTF-8 bytes of the whole secret, whsec_ included.
  const expected = crypto.createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  if (!crypto.timingSafeEqual(expected, Buffer.from(parts.v1, 'hex'))) throw new Error('signature mismatch');
  return JSON.parse(rawBody.toString('utf8'));
}

module.exports = { verifyWebhook };
