// Faster validation of the DTOs in libs/contracts, same answers: compiled checks for valid bodies
// and queries, and a cache for class-validator's metadata lookups. Both are runtime patches that
// each app turns on at start-up (docs/runtime-patches.md).
export * from './metadata-cache';
export * from './valid-check';
