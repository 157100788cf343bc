import { ErrorCode, JsonBytes, RpcReply } from '@dc/contracts';
import type { Msg } from 'nats';
import { answer, answerWithBytes, json, RequestPacket } from './wire-format';

/**
 * Runs a request's handler and gives its reply, or undefined when no handler serves the pattern
 * (api-core's RpcDispatcher). Must not reject: failures are replies.
 */
export type RpcDispatch = (pattern: string, data: unknown) => Promise<RpcReply> | undefined;

/**
 * A request run by `dispatch` and answered here, in the wire format Nest's publisher would use
 * (a read's JSON bytes as the whole message), without Nest's per-message pipeline (docs/adr/0034).
 * An event (no id) or a pattern `dispatch` does not serve goes to Nest (`toNest`).
 */
export async function dispatchDirectly(natsMsg: Msg, channel: string, dispatch: RpcDispatch, toNest: () => Promise<unknown>): Promise<unknown> {
  let packet: RequestPacket;
  try {
    packet = json.decode(natsMsg.data) as RequestPacket;
  } catch {
    // Signed by a trusted sender yet not JSON: a bug of the sender, answered rather than dropped.
    answer(natsMsg, undefined, { ok: false, error: { code: ErrorCode.InternalError, message: 'The request could not be completed.' } });
    return undefined;
  }
  const pending = packet.id === undefined ? undefined : dispatch(channel, packet.data);
  if (!pending) return toNest();
  const reply = await pending;
  if (reply.ok && reply.body instanceof JsonBytes) return answerWithBytes(natsMsg, reply.status, reply.body);
  answer(natsMsg, packet.id, reply);
  return undefined;
}
