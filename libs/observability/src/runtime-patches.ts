import type { RuntimePatchName } from '@dc/config';
import type { Logger } from './logger';
import { missingNodeArgs } from './runtime-flags';

/**
 * One process-wide change to a library's internals or to V8 that a service makes for speed or
 * memory, never for correctness (docs/runtime-patches.md lists each: what it changes, the pinned
 * version, the measured gain, the test that pins it, what to do on upgrade).
 */
export interface RuntimePatch {
  name: RuntimePatchName;
  /** Installs the patch for the whole process; called once, before the service's first connection. */
  install(): void;
}

export interface InstalledPatches {
  on: RuntimePatchName[];
  off: RuntimePatchName[];
}

/**
 * Installs the service's patches except those RUNTIME_PATCHES_OFF names, in the order given. Each
 * app lists its patches in one module (`apps/<app>/src/runtime-patches.ts`) and calls this first
 * thing at start-up, so every patch is visible in one place and can be turned off on its own.
 */
export function installRuntimePatches(patches: readonly RuntimePatch[], off: ReadonlySet<RuntimePatchName>): InstalledPatches {
  const installed: InstalledPatches = { on: [], off: [] };
  for (const patch of patches) {
    if (off.has(patch.name)) {
      installed.off.push(patch.name);
      continue;
    }
    patch.install();
    installed.on.push(patch.name);
  }
  return installed;
}

/** The start-up line that says which patches run in this process. */
export function logRuntimePatches(logger: Logger, { on, off }: InstalledPatches): void {
  logger.info({ runtimePatches: { on, off } }, `runtime patches on: ${on.join(', ') || 'none'}${off.length ? `; off (RUNTIME_PATCHES_OFF): ${off.join(', ')}` : ''}`);
}

/** Warns when node was started without the service's heap options (runtime-flags.ts, NODE_ARG_PATCHES) that are not turned off. */
export function warnOfMissingNodeArgs(logger: Logger, service: string, off: ReadonlySet<RuntimePatchName>): void {
  const missing = missingNodeArgs(service, off);
  if (missing.length) {
    logger.warn({ missing }, `node was started without the options ${service} runs with (as in docker/Dockerfile): expect more garbage collection or memory under load`);
  }
}
