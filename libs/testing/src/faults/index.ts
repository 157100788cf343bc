export * from './private-servers';
export * from './load';
export * from './fault-suite';
