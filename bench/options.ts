/** A bench's command-line options: `--name value` or `--name=value`. */
export function option(name: string): string | undefined {
  const i = process.argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  return process.argv[i].includes('=') ? process.argv[i].slice(name.length + 3) : process.argv[i + 1];
}

/** A non-negative number option, `fallback` when absent; anything else stops the bench with the option's name. */
export function numberOption(name: string, fallback: number): number {
  const value = Number(option(name) ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a number`);
  return value;
}
