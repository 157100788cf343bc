import type { AnyContract } from '@dc/contracts';
import { handledContract } from './handles.decorator';

/** A class whose methods carry @Handles. */
export type HandlerClass = new (...args: never[]) => unknown;

/**
 * Start-up check: every contract has exactly one handler among `classes`, and no handler serves a
 * pattern outside the contracts. Returns the problems, one sentence each (empty when sound).
 */
export function handlerCoverageProblems(contracts: readonly AnyContract[], classes: readonly HandlerClass[]): string[] {
  const handlers = new Map<string, string[]>();
  for (const cls of classes) {
    const proto = cls.prototype as Record<string, object>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const contract = name === 'constructor' ? undefined : handledContract(proto[name]);
      if (contract) handlers.set(contract.pattern, [...(handlers.get(contract.pattern) ?? []), `${cls.name}.${name}`]);
    }
  }
  const known = new Set(contracts.map((c) => c.pattern));
  const problems: string[] = [];
  for (const c of contracts) {
    const found = handlers.get(c.pattern) ?? [];
    if (found.length === 0) problems.push(`no handler for RPC pattern ${c.pattern}`);
    if (found.length > 1) problems.push(`RPC pattern ${c.pattern} has ${found.length} handlers: ${found.join(', ')}`);
  }
  for (const [pattern, found] of handlers) {
    if (!known.has(pattern)) problems.push(`${found.join(', ')} handles ${pattern}, which no contract in libs/contracts declares`);
  }
  return problems;
}

/** Throws with every problem listed (api-core refuses to start half-wired). */
export function assertHandlerCoverage(contracts: readonly AnyContract[], classes: readonly HandlerClass[]): void {
  const problems = handlerCoverageProblems(contracts, classes);
  if (problems.length) throw new Error(`RPC handlers do not match the contracts:\n- ${problems.join('\n- ')}`);
}
