import { JsonBytes, REPLY_STATUS_HEADER, RpcReply } from '@dc/contracts';
import { headers, JSONCodec, Msg, MsgHdrs, Payload, PublishOptions } from 'nats';

/**
 * Nest's NATS wire format, for the replies this server sends itself (refusals, shedding, direct
 * dispatch) and the request bodies it decodes: NatsBus reads these exactly as it reads the replies
 * Nest's own publisher sends.
 */
export const json = JSONCodec<unknown>();

/** NestJS's request packet (what NatsBus sends): `id` names the reply; a packet without one is an event. */
export interface RequestPacket {
  id?: string;
  data?: unknown;
}

/** Answers in Nest's wire format, as a handler's last packet would be (nothing to answer for an event). */
export function answer(natsMsg: Msg, id: string | undefined, response: RpcReply, h?: MsgHdrs): void {
  if (natsMsg.reply) natsMsg.respond(json.encode({ id, response, isDisposed: true }), h && { headers: h });
}

/**
 * A success whose body is JSON bytes (a read, docs/adr/0024): the bytes are the whole message and a
 * header carries the status, so neither side wraps, parses or re-serialises the body.
 */
export function answerWithBytes(natsMsg: Msg, status: number, body: JsonBytes): boolean {
  if (!natsMsg.reply) return false;
  const h = headers();
  h.set(REPLY_STATUS_HEADER, String(status));
  return natsMsg.respond(body.bytes, { headers: h });
}

/**
 * A request message whose body is the decoded JSON (a gzipped or claim-checked request, read back);
 * everything else is the original's, so Nest reads and answers it as it would the original.
 */
export class DecodedMsg implements Msg {
  constructor(
    readonly original: Msg,
    readonly data: Uint8Array,
  ) {}

  get subject(): string {
    return this.original.subject;
  }

  get sid(): number {
    return this.original.sid;
  }

  get reply(): string | undefined {
    return this.original.reply;
  }

  get headers(): MsgHdrs | undefined {
    return this.original.headers;
  }

  respond(payload?: Payload, opts?: PublishOptions): boolean {
    return this.original.respond(payload, opts);
  }

  json<T>(): T {
    return json.decode(this.data) as T;
  }

  string(): string {
    return new TextDecoder().decode(this.data);
  }
}

/** The message as received from NATS (what NATS delivered, whichever of the two Nest holds). */
export function received(natsMsg: Msg): Msg {
  return natsMsg instanceof DecodedMsg ? natsMsg.original : natsMsg;
}
