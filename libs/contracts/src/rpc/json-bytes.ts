/**
 * A reply body already serialised to JSON (docs/adr/0024). Read contracts (`publicRead`) answer with
 * it: api-core serialises the body once (Postgres builds debtor pages as JSON text), NATS carries the
 * bytes as the whole message, and the gateway writes them to the socket without parsing them.
 * `T` is the JSON's shape, for the types only.
 */
export class JsonBytes<T = unknown> {
  /** Phantom: carries the shape, never set. */
  declare readonly shape?: T;

  constructor(readonly bytes: Uint8Array) {}

  static of<T>(value: T): JsonBytes<T> {
    return new JsonBytes<T>(Buffer.from(JSON.stringify(value)));
  }

  static fromText<T>(json: string): JsonBytes<T> {
    return new JsonBytes<T>(Buffer.from(json));
  }

  /** The value, for the rare reader that needs it (tests, tools): the gateway never calls it. */
  parse(): T {
    return JSON.parse(Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('utf8')) as T;
  }
}

/**
 * NATS header of a reply whose message body is the JSON of a success (a JsonBytes body): its HTTP
 * status. Replies without it are Nest's packets (`{id, response}`).
 */
export const REPLY_STATUS_HEADER = 'x-reply-status';
