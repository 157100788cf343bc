export * from './openapi-contract';
export * from './requests';
export * from './send';
export * from './runner';
