export * from './error-code';
export * from './app-error';
