import { ErrorCode } from '@dc/contracts';
import type { Msg } from 'nats';
import { ClaimStore, isEncoded, readBody, UnreadableBodyError } from '../payload-codec';
import type { WarnLog } from './options';
import { answer, DecodedMsg } from './wire-format';

/**
 * The message as Nest should read it: a body NatsBus sent gzipped or by claim check decoded
 * (async zlib, the claim taken once; payload-codec.ts, docs/adr/0017), a plain one as it came. A
 * body that cannot be read is answered here, and undefined returned.
 */
export async function readableMessage(payloads: ClaimStore, log: WarnLog, natsMsg: Msg, requestId: string, channel: string): Promise<Msg | undefined> {
  if (!isEncoded(natsMsg.headers)) return natsMsg;
  try {
    return new DecodedMsg(natsMsg, await readBody(natsMsg.headers, natsMsg.data, payloads));
  } catch (err) {
    const retryable = err instanceof UnreadableBodyError && err.retryable;
    log.warn({ requestId, channel, err: (err as Error).message }, 'request body could not be read');
    answer(natsMsg, undefined, {
      ok: false,
      error: retryable
        ? // The claim expired, was taken already, or Redis is unreachable: the caller may send it again.
          { code: ErrorCode.ServiceUnavailable, message: 'The request could not be read back in time. Retry the request.' }
        : { code: ErrorCode.InternalError, message: 'The request could not be completed.' },
    });
    return undefined;
  }
}
