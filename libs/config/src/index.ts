export * from './config';
export * from './bull-prefix';
