import { CallAnalysisView } from '@dc/contracts';

/**
 * The stored `analysis` JSON as the API shows it: null until analysed; every key present, in the
 * view's order, with a neutral default for one the analysis lacks. (The only part of a call that
 * is not a straight copy of its SQL.)
 */
export function callAnalysisView(value: unknown): CallAnalysisView | null {
  if (value === null || typeof value !== 'object') return null;
  const a = value as Partial<CallAnalysisView>;
  return {
    summary: a.summary ?? '',
    sentiment: a.sentiment ?? 0,
    disposition: a.disposition ?? '',
    outcomes: a.outcomes ?? [],
  };
}
