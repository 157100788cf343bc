export const CONFIG = Symbol('CONFIG');
export const LOGGER = Symbol('LOGGER');
/** The `ObjectStorage` (libs/storage), read for the rejected-rows files the importer stores. */
export const STORAGE = Symbol('STORAGE');
