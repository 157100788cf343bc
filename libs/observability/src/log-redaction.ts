/** What a secret is replaced with in a log line. */
export const CENSOR = '[redacted]';

/** Fields censored where they stand at the top of a log object. */
const TOP_LEVEL = new Set(['authorization', 'key', 'secret', 'operatorToken']);
/** Fields censored one level down, in any object of the log object (`{ apiKey: { key } }`, `{ webhook: { secret } }`). */
const NESTED = ['key', 'secret'];

/**
 * A log object with its secrets censored: `authorization`, `key`, `secret`, `operatorToken`;
 * `key` and `secret` in any object one level down; `req.headers.authorization`. These are the
 * paths pino's `redact` option censored before, done here because its redaction cloned every log
 * object to look for them (half the cost of a request's log line, docs/adr/0037). The object is
 * returned as it is when it holds none, the usual case, and copied when it does: the caller's
 * object is never changed. Undefined values are left alone (pino leaves them out of the line).
 */
export function censorSecrets(object: Record<string, unknown>): Record<string, unknown> {
  let censored: Record<string, unknown> | undefined;
  for (const name in object) {
    if (!Object.prototype.hasOwnProperty.call(object, name)) continue;
    const value = object[name];
    if (value === undefined) continue;
    let replacement: unknown = value;
    if (TOP_LEVEL.has(name)) replacement = CENSOR;
    else if (value !== null && typeof value === 'object') replacement = censorInner(value as Record<string, unknown>, name === 'req');
    if (replacement !== value) (censored ??= { ...object })[name] = replacement;
  }
  return censored ?? object;
}

function censorInner(value: Record<string, unknown>, isRequest: boolean): Record<string, unknown> {
  let censored: Record<string, unknown> | undefined;
  for (const name of NESTED) {
    if (Object.prototype.hasOwnProperty.call(value, name) && value[name] !== undefined) censor((censored ??= copyOf(value)), name, CENSOR);
  }
  const headers = isRequest ? value.headers : undefined;
  if (headers !== null && typeof headers === 'object' && (headers as Record<string, unknown>).authorization !== undefined) {
    censor((censored ??= copyOf(value)), 'headers', { ...(headers as Record<string, unknown>), authorization: CENSOR });
  }
  return censored ?? value;
}

function censor(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A copy with the same prototype and every own property (an Error keeps its message and stack),
 * each one redefinable, even where the original's was not (a frozen object's). An accessor is read
 * once from the original and kept as its value: since Node 22 an Error's own `stack` is an accessor
 * that answers only for the error it was captured on, undefined on a copy.
 */
function copyOf(value: object): Record<string, unknown> {
  const descriptors = Object.getOwnPropertyDescriptors(value);
  for (const [key, descriptor] of Object.entries(descriptors)) {
    descriptors[key] = descriptor.get ? { value: Reflect.get(value, key), enumerable: descriptor.enumerable, writable: true, configurable: true } : { ...descriptor, configurable: true };
  }
  return Object.create(Object.getPrototypeOf(value) as object | null, descriptors) as Record<string, unknown>;
}
