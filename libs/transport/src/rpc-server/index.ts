export * from './nats-rpc.server';
export type { NatsRpcServerOptions, WarnLog } from './options';
export type { RpcDispatch } from './direct-dispatch';
