export * from './logger';
export * from './request-context';
export * from './health-server';
export * from './shutdown';
export * from './background-service';
export * from './bearer-tokens';
export * from './metrics';
export * from './runtime-flags';
