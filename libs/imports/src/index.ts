export * from './csv-dialect';
export * from './column-mapping';
