import { compileWasmWithLiftoffOnly, readBinaryColumnsAsBytes } from '@dc/database';
import type { RuntimePatch } from '@dc/observability';
import { applyServiceRuntimeFlags } from '@dc/observability';
import { enableWriteCoalescing } from '@dc/transport';

/**
 * Every process-wide patch api-core installs at start-up, before its first connection (each can be
 * turned off with RUNTIME_PATCHES_OFF; what each changes and gains: docs/runtime-patches.md).
 * Its command-line heap option (`young-generation-16mib`) is not here: node must be started with
 * it (NODE_ARG_PATCHES, libs/observability/src/runtime-flags.ts).
 */
export const API_CORE_RUNTIME_PATCHES: readonly RuntimePatch[] = [
  { name: 'v8-heap-flags', install: applyServiceRuntimeFlags },
  { name: 'wasm-liftoff-only', install: compileWasmWithLiftoffOnly },
  { name: 'pg-binary-columns', install: readBinaryColumnsAsBytes },
  { name: 'nats-write-coalescing', install: enableWriteCoalescing },
];
