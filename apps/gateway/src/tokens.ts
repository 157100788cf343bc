export const CONFIG = Symbol('CONFIG');
export const LOGGER = Symbol('LOGGER');
