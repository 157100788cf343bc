import { AddressRefusedError, DnsLookupError } from './guarded-connector';

/** How a delivery attempt failed; the attempt log stores it (docs/adr/0020). */
export type AttemptErrorClass = 'http_status' | 'timeout' | 'connection' | 'dns' | 'tls' | 'refused_address' | 'refused_scheme';

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA', 'ESERVFAIL']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'ABORT_ERR']);
const TIMEOUT_NAMES = new Set(['AbortError', 'TimeoutError']);
/** OpenSSL verification codes without a common prefix (the others: ERR_TLS_*, ERR_SSL_*, CERT_*, UNABLE_TO_*). */
const TLS_CODES = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'HOSTNAME_MISMATCH', 'INVALID_CA', 'PATH_LENGTH_EXCEEDED', 'INVALID_PURPOSE', 'EPROTO']);
const TLS_PREFIXES = ['ERR_TLS_', 'ERR_SSL_', 'CERT_', 'UNABLE_TO_'];
const MAX_ERROR_LENGTH = 200;

/**
 * The class and short text of an attempt that failed with `err` (anything not recognised is a
 * connection failure). `timeoutMs` words the timeout.
 */
export function classifyAttemptError(err: unknown, timeoutMs: number): { errorClass: AttemptErrorClass; error: string } {
  if (err instanceof AddressRefusedError) return { errorClass: 'refused_address', error: err.message };
  if (err instanceof DnsLookupError) return { errorClass: 'dns', error: err.message };
  const { code = '', name = '', message = String(err), syscall } = (err ?? {}) as NodeJS.ErrnoException;
  if (DNS_CODES.has(code)) return { errorClass: 'dns', error: shorten(message) };
  if (TIMEOUT_CODES.has(code) || TIMEOUT_NAMES.has(name)) return { errorClass: 'timeout', error: timeoutText(timeoutMs) };
  if (TLS_CODES.has(code) || TLS_PREFIXES.some((prefix) => code.startsWith(prefix))) return { errorClass: 'tls', error: shorten(`${code}: ${message}`) };
  // Node's socket errors name the call and the code ('connect ECONNREFUSED'); undici's carry a code and a sentence.
  const text = syscall && code ? `${syscall} ${code}` : code ? `${code}: ${message}` : message;
  return { errorClass: 'connection', error: shorten(text) };
}

export function timeoutText(timeoutMs: number): string {
  return `no response within ${timeoutMs} ms`;
}

function shorten(text: string): string {
  return text.length <= MAX_ERROR_LENGTH ? text : `${text.slice(0, MAX_ERROR_LENGTH - 1)}…`;
}
