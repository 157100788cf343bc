export interface MicroBatcherOptions {
  /** At most this many items per run. */
  maxBatch: number;
  /** Runs in progress at once; items that arrive meanwhile wait and go together into the next run. */
  maxConcurrent: number;
}

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (err: unknown) => void;
}

/**
 * Turns many concurrent single-item calls into few set-based ones: items submitted in the same
 * turn of the event loop (and those that arrive while `maxConcurrent` runs are busy) are handed to
 * `run` together, which answers one result per item, in order. So N jobs claiming or recording at
 * the same moment cost one SQL statement, not N, and under load batches grow by themselves.
 * A run that throws rejects every item of its batch.
 */
export class MicroBatcher<I, O> {
  private queue: Pending<I, O>[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly options: MicroBatcherOptions,
  ) {
    if (options.maxBatch < 1 || options.maxConcurrent < 1) throw new Error('MicroBatcher needs maxBatch and maxConcurrent of at least 1');
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  /** Items waiting for a run (not counting those of runs in progress). */
  get waiting(): number {
    return this.queue.length;
  }

  private flush(): void {
    while (this.queue.length > 0 && this.running < this.options.maxConcurrent) {
      const batch = this.queue.length <= this.options.maxBatch ? this.queue : this.queue.slice(0, this.options.maxBatch);
      this.queue = batch === this.queue ? [] : this.queue.slice(this.options.maxBatch);
      this.running += 1;
      void this.runBatch(batch).finally(() => {
        this.running -= 1;
        this.flush();
      });
    }
  }

  private async runBatch(batch: Pending<I, O>[]): Promise<void> {
    try {
      const results = await this.run(batch.map((p) => p.item));
      if (results.length !== batch.length) throw new Error(`MicroBatcher: ${results.length} results for ${batch.length} items`);
      batch.forEach((p, i) => p.resolve(results[i]));
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
}
