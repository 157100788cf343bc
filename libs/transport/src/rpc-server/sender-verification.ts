import { DEADLINE_HEADER, ErrorCode } from '@dc/contracts';
import { headers, Msg } from 'nats';
import { parseDeadline } from '../deadline';
import { REFUSED_HEADER, SignatureVerdict, SigningKeys, verifyRequest } from '../request-signature';
import type { WarnLog } from './options';
import { answer } from './wire-format';

/** The caller's deadline (epoch ms, from the header the gateway sets), if it sent one. */
export function deadlineOf(natsMsg: Msg): number | undefined {
  return parseDeadline(natsMsg.headers?.get(DEADLINE_HEADER));
}

/**
 * One HMAC over the bytes as received (request-signature.ts): true for a request signed by a
 * trusted sender and still within its deadline. Otherwise the request is refused here, unread and
 * unrun, and false returned: nothing is decoded, parsed or run for a forger, nor for a caller that
 * has already given up.
 */
export function verifySender(keys: SigningKeys, log: WarnLog, natsMsg: Msg, requestId: string, channel: string): boolean {
  const verdict = verifyRequest(keys, natsMsg.subject, natsMsg.headers, natsMsg.data, Date.now());
  if (verdict === 'valid') return true;
  refuse(log, natsMsg, requestId, channel, verdict);
  return false;
}

/**
 * A request whose signature is missing or wrong is refused `unauthorized` (the log line names the
 * request, never its payload). A genuine one past its deadline is dropped the same way: the caller
 * has stopped listening, and running it could only surprise a retry; a replay of it after the
 * deadline gets the same answer. REFUSED_HEADER lets the gateway tell its own misconfiguration
 * from a client's fault.
 */
function refuse(log: WarnLog, natsMsg: Msg, requestId: string, channel: string, verdict: Exclude<SignatureVerdict, 'valid'>): void {
  if (verdict === 'expired') {
    const deadline = deadlineOf(natsMsg) ?? 0;
    log.warn({ requestId, channel, lateMs: Date.now() - deadline }, 'dropped: the caller had already given up');
  } else {
    log.warn({ requestId, channel, signature: verdict }, 'refused: request not signed by a trusted sender');
  }
  const message = verdict === 'expired' ? 'The request expired before it could be run.' : 'The request is not signed by a trusted sender.';
  const h = headers();
  h.set(REFUSED_HEADER, verdict);
  answer(natsMsg, undefined, { ok: false, error: { code: ErrorCode.Unauthorized, message } }, h);
}
