import { AppError, ErrorIssue } from '@dc/contracts';

/**
 * How deep a JSON body may nest. The deepest body the API documents is 4 levels (debtor batch →
 * debtor → debt → field); 64 leaves room for any client's framing while keeping every walk over a
 * body (validation, transformation, idempotency fingerprints) far from the stack's limits.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * A body that cannot be accepted (not JSON, wrong content type, a NUL character) is not refused
 * by the parser, which runs before authentication: it is replaced by a marker whose error
 * checkRequestInput throws after the other policies. So a request without a valid key hears 401
 * whatever its body, and the order of checks is the same on every route.
 */
const BODY_ERROR = Symbol('body error');

export function rejectedBody(error: AppError): object {
  return { [BODY_ERROR]: error };
}

export function bodyErrorOf(body: unknown): AppError | undefined {
  return typeof body === 'object' && body !== null ? (body as { [BODY_ERROR]?: AppError })[BODY_ERROR] : undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
// JSON can only carry NUL or a lone surrogate escaped: bodies without such an escape need no walk.
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/**
 * The JSON body parser's work, as a pure function: the parsed body, or the marker of why it
 * cannot be accepted. Never throws and never recurses, whatever the bytes.
 */
export function parseJsonBody(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return rejectedBody(AppError.validation('The request body is not valid UTF-8.'));
  }
  if (nestingExceeds(text, MAX_BODY_DEPTH)) {
    return rejectedBody(AppError.validation(`The request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels.`));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return rejectedBody(AppError.validation('The request body is not valid JSON.'));
  }
  const problems = SUSPECT_ESCAPE.test(text) ? unstorableTextPaths(parsed) : [];
  return problems.length ? rejectedBody(unstorableTextError(problems)) : parsed;
}

/**
 * Whether the JSON text nests `[`/`{` deeper than `max`, counted in one pass outside strings.
 * Runs before JSON.parse, so a hostile body costs a scan, not a deep object graph.
 */
export function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

export type TextProblem = 'nul' | 'surrogate';
export interface UnstorableText {
  path: string;
  problem: TextProblem;
}

// With the u flag a well-formed pair is one code point; only a lone surrogate matches.
const LONE_SURROGATE = /\p{Cs}/u;

function problemOf(text: string): TextProblem | undefined {
  if (text.includes('\u0000')) return 'nul';
  if (LONE_SURROGATE.test(text)) return 'surrogate';
  return undefined;
}

/**
 * The strings and keys PostgreSQL text cannot store as sent, at most 20: a NUL character (U+0000,
 * refused by Postgres: the whole request would fail with a database error) or a lone UTF-16
 * surrogate (`"\ud800"`: would be silently replaced by U+FFFD on the way to UTF-8). `path` names the
 * value; the default 'body' stands for a whole body or query object, whose keys are top-level
 * paths. Iterative (an explicit stack), so no depth of nesting can exhaust the call stack.
 */
export function unstorableTextPaths(value: unknown, path = 'body'): UnstorableText[] {
  const found: UnstorableText[] = [];
  // A key's own problem travels as its own entry, so it is reported before the key's value.
  const stack: { path: string; value?: unknown; keyProblem?: TextProblem }[] = [{ path, value }];
  const child = (parent: string, key: string | number) =>
    typeof key === 'number' ? `${parent}[${key}]` : parent === 'body' ? key : `${parent}.${key}`;
  for (let next = stack.pop(); next && found.length < 20; next = stack.pop()) {
    if (next.keyProblem) {
      found.push({ path: next.path, problem: next.keyProblem });
    } else if (typeof next.value === 'string') {
      const problem = problemOf(next.value);
      if (problem) found.push({ path: next.path, problem });
    } else if (Array.isArray(next.value)) {
      for (let i = next.value.length - 1; i >= 0; i--) stack.push({ path: child(next.path, i), value: next.value[i] });
    } else if (typeof next.value === 'object' && next.value !== null) {
      const entries = Object.entries(next.value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i];
        stack.push({ path: child(next.path, key), value: item });
        const keyProblem = problemOf(key);
        if (keyProblem) stack.push({ path: child(next.path, key), keyProblem });
      }
    }
  }
  return found;
}

const PROBLEM_TEXT: Record<TextProblem, string> = {
  nul: 'contains a NUL character (\\u0000), which text fields cannot hold',
  surrogate: 'contains an unpaired UTF-16 surrogate (such as \\ud800), which is not valid Unicode text',
};

export function unstorableTextError(found: UnstorableText[]): AppError {
  const issues: ErrorIssue[] = found.map(({ path, problem }) => ({ message: `${path} ${PROBLEM_TEXT[problem]}`, path }));
  return AppError.validation(issues.length === 1 ? issues[0].message : `${issues.length} fields hold text that cannot be stored; see issues.`, issues);
}
