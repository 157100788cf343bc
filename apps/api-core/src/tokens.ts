/** Injection tokens for the process-wide objects built in main.ts. */
export const CONFIG = Symbol('CONFIG');
export const LOGGER = Symbol('LOGGER');
