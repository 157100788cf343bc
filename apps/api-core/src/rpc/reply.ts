import { ItemBody, RpcReply } from '@dc/contracts';

export function ok<T>(body: T, status = 200): RpcReply<T> {
  return { ok: true, status, body };
}

export function item<T>(data: T, status = 200): RpcReply<ItemBody<T>> {
  return { ok: true, status, body: { data } };
}
