import type { RuntimePatch } from '@dc/observability';
import { applyServiceRuntimeFlags } from '@dc/observability';
import { enableWriteCoalescing } from '@dc/transport';
import { cacheValidationMetadata, enableCompiledValidation } from '@dc/validation';

/**
 * Every process-wide patch the gateway installs at start-up, before its first connection (each can
 * be turned off with RUNTIME_PATCHES_OFF; what each changes and gains: docs/runtime-patches.md).
 * The gateway's one command-line flag, `gateway-old-space-floor`, is not here: node must be
 * started with it (SERVICE_NODE_ARGS).
 */
export const GATEWAY_RUNTIME_PATCHES: readonly RuntimePatch[] = [
  { name: 'v8-heap-flags', install: applyServiceRuntimeFlags },
  { name: 'nats-write-coalescing', install: enableWriteCoalescing },
  { name: 'validation-metadata-cache', install: cacheValidationMetadata },
  { name: 'compiled-validation', install: enableCompiledValidation },
];
