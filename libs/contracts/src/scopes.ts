export type Scope = 'read' | 'write';
export const SCOPES: readonly Scope[] = ['read', 'write'];

/** `read` is always present; `write` is added on request. A write-only key cannot exist. */
export function normaliseScopes(requested: readonly string[] | undefined): Scope[] {
  return requested?.includes('write') ? ['read', 'write'] : ['read'];
}
