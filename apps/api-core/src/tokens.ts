/** Injection tokens for the process-wide objects built in main.ts. */
export const CONFIG = Symbol('CONFIG');
export const LOGGER = Symbol('LOGGER');
/** `Transactions` (libs/database): services group repository calls into one transaction with it. */
export const TRANSACTIONS = Symbol('TRANSACTIONS');
/** The `ObjectStorage` (libs/storage) of uploaded CSV files. */
export const STORAGE = Symbol('STORAGE');
/** The BullMQ `Queue<ImportJob>` of IMPORTS_QUEUE (producer only; apps/importer consumes it). */
export const IMPORT_QUEUE = Symbol('IMPORT_QUEUE');
