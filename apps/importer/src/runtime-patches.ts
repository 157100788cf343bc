import type { RuntimePatch } from '@dc/observability';
import { applyServiceRuntimeFlags } from '@dc/observability';

/**
 * Every process-wide patch the importer installs at start-up (each can be turned off with
 * RUNTIME_PATCHES_OFF; docs/runtime-patches.md). It never loads Prisma's query engine, so
 * `wasm-liftoff-only` would change nothing here.
 */
export const IMPORTER_RUNTIME_PATCHES: readonly RuntimePatch[] = [{ name: 'v8-heap-flags', install: applyServiceRuntimeFlags }];
