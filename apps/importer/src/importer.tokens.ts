/** Injection tokens of the process-wide objects main.ts builds (see ImporterModule.register). */
export const CONFIG = Symbol('AppConfig');
export const LOGGER = Symbol('Logger');
export const STORAGE = Symbol('ObjectStorage');
/** `WritePositions` (libs/database) when read replicas are configured, else null (docs/adr/0050). */
export const WRITE_POSITIONS = Symbol('WritePositions');
