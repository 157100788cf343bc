import { SetMetadata } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { AnyContract, AuthContext, JsonBytes, OperatorContract, PublicContract } from '@dc/contracts';

export const HANDLED_CONTRACT = 'dc:handled-contract';

/** A success reply whose status is one of the contract's `alsoStatus` (see `withStatus`). */
export class StatusReply<O> {
  constructor(
    readonly status: number,
    readonly body: O,
  ) {}
}

/** Answers with another success status the contract allows (e.g. 200 for an identical retry of a 201). */
export function withStatus<O>(status: number, body: O): StatusReply<O> {
  return new StatusReply(status, body);
}

/** A read contract's handler returns the body (RpcDispatcher serialises it once) or its JsonBytes. */
type Answer<O> = O extends JsonBytes<infer V> ? V | O : O;
type Result<O> = Answer<O> | StatusReply<Answer<O>> | Promise<Answer<O> | StatusReply<Answer<O>>>;

/** The method a contract needs: public handlers receive the input and the caller, operator ones the payload. */
export type HandlerOf<C> =
  C extends PublicContract<infer I, infer O>
    ? (input: I, caller: AuthContext) => Result<O>
    : C extends OperatorContract<infer I, infer O>
      ? (input: I) => Result<O>
      : never;

/**
 * Binds a method to an RPC contract: subscribes it to the contract's pattern and hands it the typed
 * input (and, for public contracts, the caller). The method's type is checked against the contract,
 * so a handler that expects another payload or returns another body does not compile. The reply's
 * status and envelope are added by RpcDispatcher from the contract.
 */
export function Handles<C extends AnyContract>(contract: C) {
  return (target: object, key: string | symbol, descriptor: { value?: HandlerOf<C> }): void => {
    const method = descriptor as PropertyDescriptor;
    SetMetadata(HANDLED_CONTRACT, contract)(target, key, method);
    MessagePattern(contract.pattern)(target, key, method);
    if (contract.audience === 'public') {
      Payload('input')(target, key, 0);
      Payload('auth')(target, key, 1);
    } else {
      Payload()(target, key, 0);
    }
  };
}

/** The contract a handler method serves, if any. */
export function handledContract(handler: object): AnyContract | undefined {
  return Reflect.getMetadata(HANDLED_CONTRACT, handler) as AnyContract | undefined;
}
