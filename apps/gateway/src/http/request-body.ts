import { AppError, ErrorIssue } from '@dc/contracts';

/**
 * A body that cannot be accepted (not JSON, wrong content type, a NUL character) is not refused
 * by the parser, which runs before authentication: it is replaced by a marker whose error
 * RequestInputInterceptor throws after the guards. So a request without a valid key hears 401
 * whatever its body, and the order of checks is the same on every route.
 */
const BODY_ERROR = Symbol('body error');

export function rejectedBody(error: AppError): object {
  return { [BODY_ERROR]: error };
}

export function bodyErrorOf(body: unknown): AppError | undefined {
  return typeof body === 'object' && body !== null ? (body as { [BODY_ERROR]?: AppError })[BODY_ERROR] : undefined;
}

/**
 * Paths of the strings (and keys) holding a NUL character (U+0000), at most 20. `path` names the
 * value; the default 'body' stands for a whole body or query object, whose keys are top-level paths.
 * PostgreSQL text cannot store it: let through, it would fail the whole request with a database
 * error instead of a 400.
 */
export function nulCharacterPaths(value: unknown, path = 'body', found: string[] = []): string[] {
  if (found.length >= 20) return found;
  const child = (key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path === 'body' ? key : `${path}.${key}`);
  if (typeof value === 'string') {
    if (value.includes('\u0000')) found.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => nulCharacterPaths(item, child(i), found));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) found.push(child(key));
      nulCharacterPaths(item, child(key), found);
    }
  }
  return found;
}

export function nulCharacterError(paths: string[]): AppError {
  const issues: ErrorIssue[] = paths.map((path) => ({ message: `${path} contains a NUL character (\\u0000), which text fields cannot hold`, path }));
  return AppError.validation(issues.length === 1 ? issues[0].message : `${issues.length} fields contain a NUL character (\\u0000); see issues.`, issues);
}
