import type { NatsAccess } from '../nats-connection';
import type { NatsService } from '../nats-permissions';
import type { ClaimStore } from '../payload-codec';
import type { SigningKeys } from '../request-signature';

/** Where the server's warnings go: each names the request (its id and pattern), never its payload. */
export interface WarnLog {
  warn(obj: object, msg: string): void;
}

/** `subjectPrefix` (NatsAccess) is prepended to every pattern: lets several deployments (or test runs) share one NATS. */
export interface NatsRpcServerOptions extends NatsAccess {
  /** The queue group the replicas share: NATS routes each request to one of them. */
  queue: string;
  /** Whose NATS user this connection is (nats-permissions.ts). */
  service: NatsService;
  /** A request must be signed with one of these (request-signature.ts, docs/adr/0026). */
  signingKeys: SigningKeys;
  name: string;
  /** On close, how long requests already taken may run on before the connection closes anyway. */
  drainTimeoutMs: number;
  /** Requests run at once; the excess is answered at once with service_unavailable (docs/adr/0014). */
  maxConcurrency: number;
  /** Told to a shed caller as Retry-After. */
  retryAfterSeconds?: number;
  /** Where NatsBus parked the bodies of claim-checked requests (PayloadStore, docs/adr/0017). */
  payloads: ClaimStore;
  log: WarnLog;
  /** Told of each request shed at max concurrency, with its pattern (api-core counts them). */
  onShed?: (pattern: string) => void;
}
