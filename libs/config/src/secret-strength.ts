/**
 * Start-up checks of the secrets people type or paste (docs/security.md, "Secrets"): production
 * refuses a token that is a shipped placeholder or too guessable, and a key with too little
 * variety to be random. A clear message names the variable; the value is never echoed.
 */

/** Fragments of the placeholders this repository, its manifests and its docs ship or suggest. */
const PLACEHOLDER_FRAGMENTS = ['change-me', 'changeme', 'change_me', 'replace-me', 'replace_me', 'replaceme', 'placeholder', 'example', 'dev-operator-token', 'test-operator-token', 'your-token', 'your_token'];

/** Shannon entropy of the token's own characters times its length: a floor for random ones, near 0 for `xxxx…`. */
export function estimatedBits(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  const length = [...value].length;
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / length) * Math.log2(n / length);
  return perChar * length;
}

export const MIN_TOKEN_LENGTH = 32;
/**
 * 32 random hex characters (`openssl rand -hex 16`) estimate at ~110 bits, 32 random base64 ones
 * at ~150; a word-like or repetitive token of the same length falls well below.
 */
export const MIN_TOKEN_BITS = 96;

/** Why a bearer token is unfit for production, or undefined when it is fine. */
export function weakTokenReason(value: string): string | undefined {
  if (value.length < MIN_TOKEN_LENGTH) return `must be at least ${MIN_TOKEN_LENGTH} characters`;
  const lower = value.toLowerCase();
  if (PLACEHOLDER_FRAGMENTS.some((f) => lower.includes(f))) return 'is a placeholder value: generate one with "openssl rand -base64 32"';
  if (estimatedBits(value) < MIN_TOKEN_BITS) return 'is too predictable (repeated or few distinct characters): generate one with "openssl rand -base64 32"';
  return undefined;
}

/** A 32-byte key with fewer distinct byte values than this is not random (32 random bytes have ~30). */
const MIN_DISTINCT_KEY_BYTES = 16;

/** Why a 32-byte key is unfit for production, or undefined when it is fine. */
export function weakKeyReason(key: Buffer): string | undefined {
  return new Set(key).size < MIN_DISTINCT_KEY_BYTES ? 'is not random (too few distinct bytes): generate one with "openssl rand -base64 32"' : undefined;
}
