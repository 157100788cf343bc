import type { JsonBytes } from './json-bytes';

/** Who may call a pattern: public ones carry the caller the gateway authenticated, operator ones do not. */
export type RpcAudience = 'public' | 'operator';

/**
 * One request/reply pattern served by api-core, bound to its input and output types. The types are
 * phantom (never present at run time): the gateway's `CoreClient.send` and api-core's `@Handles`
 * take the contract, so sending or handling the wrong shape is a compile error.
 *
 * `status` is the success status of the HTTP route the pattern serves, in one place: api-core
 * replies with it, the gateway's route decorator declares it and the OpenAPI generator documents
 * it. `alsoStatus` lists the other success statuses a handler may choose with `withStatus`.
 *
 * Versioning (docs/architecture.md, "Changing a contract"): a compatible change (a new optional
 * input field, a new output field, a new pattern) keeps `version`; anything else is a new contract
 * with a new pattern (`<name>.v2`) that api-core serves beside the old one until no gateway sends it.
 */
export interface RpcContract<I, O, A extends RpcAudience = RpcAudience> {
  readonly pattern: string;
  readonly audience: A;
  readonly version: number;
  readonly status: number;
  readonly alsoStatus: readonly number[];
  /** The reply body travels as JSON bytes the gateway forwards unread (`publicRead`, JsonBytes). */
  readonly replyAsBytes: boolean;
  /** Phantom: carries the types, never set. */
  readonly types?: { input: I; output: O };
}

export type PublicContract<I, O> = RpcContract<I, O, 'public'>;
export type OperatorContract<I, O> = RpcContract<I, O, 'operator'>;
export type AnyContract = RpcContract<any, any, RpcAudience>;

interface ContractOptions {
  status?: number;
  alsoStatus?: number[];
  version?: number;
}

function contract<I, O, A extends RpcAudience>(audience: A, pattern: string, options: ContractOptions, replyAsBytes = false): RpcContract<I, O, A> {
  return Object.freeze({
    pattern,
    audience,
    version: options.version ?? 1,
    status: options.status ?? 200,
    alsoStatus: Object.freeze([...(options.alsoStatus ?? [])]),
    replyAsBytes,
  });
}

/** A pattern of the public API: the handler receives the validated input and the caller. */
export function publicRpc<I, O>(pattern: string, options: ContractOptions = {}): PublicContract<I, O> {
  return contract<I, O, 'public'>('public', pattern, options);
}

/**
 * A public read (a list page, an item by id): the handler returns the body (serialised once by
 * api-core) or its JsonBytes, and the gateway receives JsonBytes it writes to the socket unread
 * (docs/adr/0024). The body's shape `O` stays in the types end to end.
 */
export function publicRead<I, O>(pattern: string): PublicContract<I, JsonBytes<O>> {
  return contract<I, JsonBytes<O>, 'public'>('public', pattern, {}, true);
}

/** A pattern of the operator API (or internal): the payload is the input, there is no caller. */
export function operatorRpc<I, O>(pattern: string, options: ContractOptions = {}): OperatorContract<I, O> {
  return contract<I, O, 'operator'>('operator', pattern, options);
}

/** Named operator payloads: a resource id, an id with the request body, a body under a parent. */
export interface ByIdInput {
  id: string;
}
export interface UpdateInput<B> {
  id: string;
  body: B;
}
export interface BodyInput<B> {
  body: B;
}
export interface UnderOrganizationInput<B> {
  organizationId: string;
  body: B;
}
export interface UnderPortfolioInput<B> {
  portfolioId: string;
  body: B;
}

/** Every contract of a feature, e.g. `DebtorsRpc`. */
export type ContractGroup = Record<string, AnyContract>;

/** All contracts of all groups, each once; throws when two contracts share a pattern. */
export function contractsOf(groups: ContractGroup[]): AnyContract[] {
  const seen = new Map<string, AnyContract>();
  for (const group of groups) {
    for (const c of Object.values(group)) {
      if (seen.has(c.pattern) && seen.get(c.pattern) !== c) throw new Error(`Two RPC contracts share the pattern ${c.pattern}`);
      seen.set(c.pattern, c);
    }
  }
  return [...seen.values()];
}
