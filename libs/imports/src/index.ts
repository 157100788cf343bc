export * from './csv-dialect';
export * from './column-mapping';
export * from './row-rules';
export * from './import-job';
