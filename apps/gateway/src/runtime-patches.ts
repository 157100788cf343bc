import type { RuntimePatch } from '@dc/observability';
import { applyServiceRuntimeFlags } from '@dc/observability';
import { enableWriteCoalescing } from '@dc/transport';
import { cacheValidationMetadata, enableCompiledValidation } from '@dc/validation';

/**
 * Every process-wide patch the gateway installs at start-up, before its first connection (each can
 * be turned off with RUNTIME_PATCHES_OFF; what each changes and gains: docs/runtime-patches.md).
 * Its command-line heap options (`gateway-old-space-floor`, `young-generation-16mib`) are not here:
 * node must be started with them (NODE_ARG_PATCHES, libs/observability/src/runtime-flags.ts).
 */
export const GATEWAY_RUNTIME_PATCHES: readonly RuntimePatch[] = [
  { name: 'v8-heap-flags', install: applyServiceRuntimeFlags },
  { name: 'nats-write-coalescing', install: enableWriteCoalescing },
  { name: 'validation-metadata-cache', install: cacheValidationMetadata },
  { name: 'compiled-validation', install: enableCompiledValidation },
];
