export * from './namespaced-nats.server';
export * from './nats-bus';
export * from './payload-store';
export * from './deadline';
export * from './payload-codec';
