/** Injection tokens for the process-wide objects built in main.ts. */
export const CONFIG = Symbol('CONFIG');
export const LOGGER = Symbol('LOGGER');
/** `Transactions` (libs/database): services group repository calls into one transaction with it. */
export const TRANSACTIONS = Symbol('TRANSACTIONS');
