export * from './service-process';
export * from './test-database';
export * from './stack';
export * from './operator-client';
export * from './fixtures';
export { prepareTemplateDatabase } from './global-setup';
export * from './raw-post';
export * from './advisory-lock';
export * from './eventually';
