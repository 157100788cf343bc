import { compileWasmWithLiftoffOnly } from '@dc/database';
import type { RuntimePatch } from '@dc/observability';
import { applyServiceRuntimeFlags } from '@dc/observability';

/**
 * Every process-wide patch the webhook dispatcher installs at start-up, before its first
 * connection (each can be turned off with RUNTIME_PATCHES_OFF; docs/runtime-patches.md).
 */
export const WEBHOOK_DISPATCHER_RUNTIME_PATCHES: readonly RuntimePatch[] = [
  { name: 'v8-heap-flags', install: applyServiceRuntimeFlags },
  { name: 'wasm-liftoff-only', install: compileWasmWithLiftoffOnly },
];
