/**
 * When to refresh the planner's statistics while an import writes (docs/adr/0022). Every merge
 * statement looks rows up by key, but a planner whose statistics predate the load (autovacuum lags
 * every bulk load, and is off on some machines) believes the portfolio holds a handful of rows and
 * scans all of them for each chunk instead — quadratic over a large file (measured: 80 ms per
 * lookup at 300,000 debtors, and growing). So the tables are ANALYZEd once the import has written
 * `first` rows, then each time it has doubled: log₂ of the file's size passes, a few seconds over
 * a million rows.
 */
export class AnalyzeSchedule {
  private next: number;

  constructor(first: number) {
    this.next = Math.max(1, first);
  }

  /** Whether an ANALYZE is due now that the import has written `written` rows in all. */
  due(written: number): boolean {
    if (written < this.next) return false;
    while (this.next <= written) this.next *= 2;
    return true;
  }
}
