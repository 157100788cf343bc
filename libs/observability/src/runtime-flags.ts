import type { RuntimePatchName } from '@dc/config';
import { setFlagsFromString } from 'node:v8';

/**
 * V8 flags every service sets as it starts (docs/adr/0035). Not in NODE_OPTIONS: Node refuses V8
 * flags outside its list there.
 *
 * `--no-allocation-site-pretenuring`: V8 watches where objects are allocated and, when most objects
 * from one site outlive a young-generation collection, allocates that site's later objects directly
 * in the old generation. A debtor batch makes the shared sites of JSON parsing, pg's row handling
 * and string building look long-lived; after one, api-core kept allocating its read answers (which
 * die within the request) in the old generation: after 40 batches, a debtor page cost 0.38 ms of
 * api-core's CPU instead of 0.30 and its old generation swung between 50 and 150 MiB under the page
 * load; without pretenuring, 0.30–0.31 ms and a flat 51 MiB (resident 211 MiB, flat).
 *
 * `--heap-growing-percent=100`: after each full collection the old generation may grow to twice
 * what survived before the next one starts (V8's own factor ranges from 1.1 to 4 here). V8's factor
 * falls to 1.2–1.8 in a service that promotes little (it counts only the main thread's share of
 * marking, most of which runs on helper threads), which left the gateway's ~40 MiB old generation
 * less headroom than the young generation's size: V8 then starts marking again as soon as one
 * collection ends. Under the page load that was a full collection every ~300 requests, and 15–17 %
 * of the gateway's CPU went with it. A factor of 3 saves more CPU but kept the gateway ~30 MiB
 * larger after batch loads, over the 250 MiB budget (ADR 0035 has the measurements).
 */
export const SERVICE_V8_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring', '--heap-growing-percent=100'];

export function applyServiceRuntimeFlags(): void {
  for (const flag of SERVICE_V8_FLAGS) setFlagsFromString(flag);
}

/**
 * Heap options that work only on node's command line: V8 reads them once, when it sets the heap
 * up, so `setFlagsFromString` comes too late, and NODE_OPTIONS refuses some of them. The
 * Dockerfile's CMD, scripts/start-all.js and the test stack (ServiceProcess) start each service with
 * its list, and a unit test keeps the three in step; a service started without them says so
 * (missingNodeArgs). Each is a runtime patch, by the name RUNTIME_PATCHES_OFF gives it.
 *
 * `gateway-old-space-floor`, `--initial-old-space-size=80`: the gateway's old generation's limit
 * never falls below 80 MiB (docs/adr/0037). V8 counts the ArrayBuffers that outlive two scavenges
 * against that limit until the next full collection, and under load many of the gateway's do: each
 * page it relays is one (api-core's 54 KB of JSON as read from NATS), and at 50 connections a page
 * stays in flight across scavenges. With ~35 MiB of objects and V8's limit of twice that, they
 * started a full collection about every second, each marking the whole heap. A floor makes them
 * rarer (27 → 17 in one quick run at 96 MiB; none at 112). The floor is memory the old generation
 * may fill before collecting: on Node 20, 96 kept the gateway under the 250 MiB budget; Node 22
 * runs ~35 MiB larger (the bare gateway too), and at 96 the gateway reached 248–259 MiB in the full
 * read bench, at 80 227 MiB with every read ratio still passing. Raise it where memory allows.
 *
 * `young-generation-16mib`, `--max-semi-space-size=8`: the young generation of the gateway and
 * api-core stays at 16 MiB instead of 32. What they allocate per request dies within it (a page's
 * objects are garbage once its bytes are written), so a scavenge finds as little alive in 16 MiB as
 * in 32, only twice as often. Node 22 runs larger than Node 20 (api-core ~40 MiB more resident
 * under the page load: more old generation, large objects and malloc), which took both services
 * over the 250 MiB budget; the 16 MiB young generation brings them back under it with their CPU per
 * page within noise (bench/results/read-baseline-2026-11-29.md).
 */
export const NODE_ARG_PATCHES: Readonly<Record<Extract<RuntimePatchName, 'gateway-old-space-floor' | 'young-generation-16mib'>, NodeArgPatch>> = {
  'gateway-old-space-floor': { services: ['gateway'], args: ['--initial-old-space-size=80'] },
  'young-generation-16mib': { services: ['gateway', 'api-core'], args: ['--max-semi-space-size=8'] },
};

export interface NodeArgPatch {
  services: readonly string[];
  args: readonly string[];
}

/** The node options a service starts with, leaving out those of the patches named off. */
export function serviceNodeArgs(service: string, off: ReadonlySet<string> = new Set()): string[] {
  return Object.entries(NODE_ARG_PATCHES)
    .filter(([name, patch]) => !off.has(name) && patch.services.includes(service))
    .flatMap(([, patch]) => patch.args);
}

/** Every service's node options, all patches on (the Dockerfile's CMDs, `npm run start:all`). */
export const SERVICE_NODE_ARGS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  ['gateway', 'api-core', 'importer', 'webhook-dispatcher'].map((service) => [service, serviceNodeArgs(service)]),
);

/** The service's node options (those of the patches not named off) this process was not started with. */
export function missingNodeArgs(service: string, off: ReadonlySet<string> = new Set(), execArgv: readonly string[] = process.execArgv): string[] {
  return serviceNodeArgs(service, off).filter((arg) => !execArgv.includes(arg));
}
