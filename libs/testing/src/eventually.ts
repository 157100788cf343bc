/**
 * Retries `check` (an assertion) until it passes or `timeoutMs` runs out, then throws its last
 * error: for effects that arrive asynchronously, such as another process's log lines.
 */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
