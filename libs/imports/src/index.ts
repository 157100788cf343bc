export * from './csv-dialect';
export * from './column-mapping';
export * from './row-rules';
export * from './import-job';
export * from './spreadsheet-safety';
export * from './suggest-mapping';
export * from './file-head';
export * from './rejected-rows-file';
