/** Injection tokens of the process-wide objects main.ts builds (see ImporterModule.register). */
export const CONFIG = Symbol('AppConfig');
export const LOGGER = Symbol('Logger');
export const STORAGE = Symbol('ObjectStorage');
