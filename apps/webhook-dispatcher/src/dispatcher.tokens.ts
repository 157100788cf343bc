/** Injection tokens of the process-wide objects main.ts builds (see DispatcherModule.register). */
export const CONFIG = Symbol('AppConfig');
export const LOGGER = Symbol('Logger');
