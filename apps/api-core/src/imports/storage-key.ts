/**
 * Where the file of an upload lives: one key per upload, under its portfolio (docs/imports.md). The
 * same text is the storageKey clients pass back, and the object key in the bucket or directory.
 */
export function storageKeyOf(portfolioId: string, uploadId: string): string {
  return `portfolios/${portfolioId}/uploads/${uploadId}.csv`;
}
