import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@dc/config';
import { ImportLimits } from '@dc/contracts';
import type { Logger } from '@dc/observability';
import { ImportInterrupted, ImportYielded, NothingToReplaceError } from '../import-errors';
import { CONFIG, LOGGER } from '../importer.tokens';
import { ImportRecord, ImportsRepository } from '../imports.repository';
import type { ReadMergeProgress } from '../read-merge-progress';
import { inTransaction, Session } from '../sql-session';
import { AnalyzeSchedule } from './analyze-schedule';
import { ChunkPlan, planChunk, PlanOptions } from './merge-plan';
import { ChunkOutcome, ChunkRange, MergeRepository } from './merge.repository';

/** One chunk merged: its plan, what it cost, and what its writes found. */
interface ChunkMerge {
  plan: ChunkPlan;
  statements: number;
  ms: Record<string, number>;
  outcome: ChunkOutcome;
}

/** What a whole merge adds up to (replace and dry runs count it all before recording it). */
interface MergeTotal extends ChunkOutcome {
  markedPaid: number;
  deleted: number;
}

const emptyTotal = (): MergeTotal => ({
  created: 0, updated: 0, unchanged: 0, errors: 0, errorDetails: [], paymentsRegistered: 0, paymentsSkipped: 0, markedPaid: 0, deleted: 0,
});

function addTo(total: MergeTotal, chunk: ChunkOutcome): void {
  total.created += chunk.created;
  total.updated += chunk.updated;
  total.unchanged += chunk.unchanged;
  total.errors += chunk.errors;
  total.paymentsRegistered += chunk.paymentsRegistered;
  total.paymentsSkipped += chunk.paymentsSkipped;
  if (total.errorDetails.length < ImportLimits.maxErrorDetails) total.errorDetails.push(...chunk.errorDetails.slice(0, ImportLimits.maxErrorDetails - total.errorDetails.length));
}

/**
 * Phase merging (docs/adr/0022): staged rows are merged in row order, a chunk per transaction that
 * takes the portfolio's exclusive advisory lock first (ADR 0012), decides the chunk in memory and
 * writes it with a fixed number of set-based statements, then records merged_row and the counters.
 * Mode replace merges everything in one transaction instead, after soft-deleting the portfolio.
 */
@Injectable()
export class ImportMerger {
  constructor(
    private readonly repository: MergeRepository,
    private readonly imports: ImportsRepository,
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Merges chunks as the reader stages them (or all that are staged, once reading is done), until
   * every staged record is merged. Stops after the current chunk when `progress` is halted, or when
   * `shouldYield` says another organization's import waits (ImportYielded, docs/adr/0043).
   */
  async mergeStaged(session: Session, imp: ImportRecord, progress: ReadMergeProgress, shouldYield: () => Promise<boolean> = () => Promise.resolve(false)): Promise<void> {
    await this.repository.prepare(session);
    const statistics = new AnalyzeSchedule(this.config.imports.analyzeAfterRows);
    let written = imp.written;
    let analyzed = false;
    for await (const { from, to } of this.stagedChunks(progress)) {
      if (!analyzed) await this.repository.refreshStatistics(session);
      analyzed = true;
      const plan = await this.mergeChunk(session, imp, from, to);
      progress.mergedTo(to);
      written += plan.created + plan.updated;
      if (statistics.due(written)) await this.repository.refreshStatistics(session);
      // Not after the last chunk: an import that is done does not yield.
      if (!(progress.readDone && progress.pending === 0) && (await shouldYield())) throw new ImportYielded();
    }
  }

  /**
   * The staged records in chunks, in row order, each as soon as the reader has staged it (the rest
   * at once when reading is done); the caller tells `progress` what it merged. Throws
   * ImportInterrupted when `progress` is halted.
   */
  private async *stagedChunks(progress: ReadMergeProgress): AsyncGenerator<{ from: number; to: number }> {
    const chunkRows = this.config.imports.chunkRows;
    for (;;) {
      await progress.untilChunkOrEnd();
      if (progress.halted) throw new ImportInterrupted();
      if (progress.pending > 0) {
        const from = Math.max(progress.merged, 1) + 1;
        yield { from, to: Math.min(from + chunkRows - 1, progress.staged) };
      } else if (progress.readDone) return;
    }
  }

  /** One chunk, one transaction. */
  async mergeChunk(session: Session, imp: ImportRecord, from: number, to: number): Promise<ChunkPlan> {
    const started = performance.now();
    const { plan, statements, ms } = await inTransaction(session, async () => {
      await this.repository.lockPortfolio(session, imp.portfolioId, this.config.imports.statementTimeoutMs);
      const range = { importId: imp.id, portfolioId: imp.portfolioId, from, to };
      const result = await this.plan(session, imp, range);
      // With the chunk: a chunk is committed, its rejections with it, exactly once.
      if (result.plan.errors) await this.repository.recordRejections(session, range, result.plan.refusals);
      await this.repository.recordProgress(session, imp.id, to, result.outcome);
      return result;
    });
    this.logger.debug({ importId: imp.id, from, to, statements, ...ms, ms: Math.round(performance.now() - started) }, 'import chunk merged');
    return plan;
  }

  /**
   * Replace: in ONE transaction, under the portfolio's exclusive lock, every live debtor and debt of
   * the portfolio is soft-deleted, then every staged row is merged as mode add would (nothing left
   * live to match but what this load creates), and the counters are written. Any failure rolls it
   * all back: the old set disappears only when the new load has succeeded. A load that creates
   * nothing (every row refused) is not committed either.
   */
  async replaceAll(session: Session, imp: ImportRecord, lastRow: number, progress: ReadMergeProgress, rejections: Session): Promise<void> {
    await this.repository.prepare(session);
    // Before the transaction: an ANALYZE inside it would hold its table lock (which blocks every other
    // ANALYZE of these tables, other importers' included) until the swap commits.
    await this.repository.refreshStatistics(session);
    const chunkRows = this.config.imports.chunkRows;
    // The rejections go apart from the swap: a replace that loads nothing still lists its refused rows.
    await this.repository.forgetRejections(rejections, imp.id);
    await inTransaction(session, async () => {
      await this.repository.lockPortfolio(session, imp.portfolioId, this.config.imports.statementTimeoutMs);
      const total = emptyTotal();
      total.deleted = await this.repository.softDeletePortfolio(session, imp.portfolioId);
      for (let from = 2; from <= lastRow; from += chunkRows) {
        const range = { importId: imp.id, portfolioId: imp.portfolioId, from, to: Math.min(from + chunkRows - 1, lastRow) };
        const { plan, outcome } = await this.plan(session, imp, range);
        if (plan.errors) await this.repository.recordRejections(rejections, range, plan.refusals);
        addTo(total, outcome);
        if (progress.halted) throw new ImportInterrupted();
      }
      if (total.created + total.updated === 0) throw new NothingToReplaceError(total.errorDetails, total.errors);
      await this.recordTotal(session, imp, lastRow, total);
    });
  }

  /** A whole merge's counters and effect, and phase finishing, in the caller's transaction. */
  private async recordTotal(session: Session, imp: ImportRecord, lastRow: number, total: MergeTotal): Promise<void> {
    await this.repository.recordProgress(session, imp.id, lastRow, total);
    await this.repository.recordEffect(session, imp.id, total);
    await this.repository.setPhase(session, imp.id, 'finishing');
  }

  /**
   * A dry run (docs/adr/0049): the merge of the mode, chunk by chunk as the reader stages them, in
   * ONE transaction under the portfolio's lock — every statement a real run sends, then ROLLBACK —
   * so its counters are a real run's by construction and nothing of it is ever seen. Only the
   * rejections (through `rejections`, another session) and the counters stay. Not interrupted to
   * yield: like replace, it runs to its end once its merge has started. Then records the counters
   * with phase finishing, or throws what a real run would fail with (NothingToReplaceError).
   */
  async dryRun(session: Session, imp: ImportRecord, progress: ReadMergeProgress, rejections: Session): Promise<void> {
    await this.repository.prepare(session);
    await this.repository.forgetRejections(rejections, imp.id);
    const total = emptyTotal();
    let analyzed = false;
    await session.query('BEGIN');
    try {
      await this.repository.lockPortfolio(session, imp.portfolioId, this.config.imports.statementTimeoutMs);
      if (imp.mode === 'replace') total.deleted = await this.repository.softDeletePortfolio(session, imp.portfolioId);
      for await (const chunk of this.stagedChunks(progress)) {
        // As a real run, once its first chunk is staged (so the staging table's statistics know this
        // import); from the other session: an ANALYZE in this transaction would hold its lock until the rollback.
        if (!analyzed) await this.repository.refreshStatistics(rejections);
        analyzed = true;
        const range = { importId: imp.id, portfolioId: imp.portfolioId, ...chunk };
        const started = performance.now();
        const { plan, outcome, statements, ms } = await this.plan(session, imp, range);
        if (plan.errors) await this.repository.recordRejections(rejections, range, plan.refusals);
        addTo(total, outcome);
        progress.mergedTo(chunk.to);
        this.logger.debug({ importId: imp.id, ...chunk, statements, ...ms, ms: Math.round(performance.now() - started) }, 'dry run chunk merged');
      }
      if (imp.mode === 'replace' && total.created + total.updated === 0) throw new NothingToReplaceError(total.errorDetails, total.errors);
      if (imp.mode === 'reconcile') total.markedPaid = await this.imports.markUnlistedPaid(session, imp);
    } finally {
      await session.query('ROLLBACK').catch(() => undefined);
    }
    await inTransaction(session, () => this.recordTotal(session, imp, progress.staged, total));
  }

  private async plan(session: Session, imp: ImportRecord, range: ChunkRange): Promise<ChunkMerge> {
    const t0 = performance.now();
    const staged = await this.repository.stagedRows(session, range);
    // Replace matches like update on a portfolio whose old set is already deleted: only this load is live.
    const state = await this.repository.readState(session, range, staged, imp.mode === 'add');
    const t1 = performance.now();
    const plan = planChunk(staged, state, this.options(imp));
    const t2 = performance.now();
    const { statements, paymentsRegistered, unchanged } = await this.repository.write(session, range, plan);
    const ms = { read: Math.round(t1 - t0), plan: Math.round(t2 - t1), write: Math.round(performance.now() - t2) };
    const outcome: ChunkOutcome = {
      created: plan.created, updated: plan.updated, unchanged, errors: plan.errors, errorDetails: plan.errorDetails,
      paymentsRegistered, paymentsSkipped: plan.counts.payments - paymentsRegistered,
    };
    return { plan, statements, ms, outcome };
  }

  private options(imp: ImportRecord): PlanOptions {
    const column = (field: string) => imp.columnMapping.find((m) => m.targetField === field)?.sourceColumn ?? field;
    return {
      mode: imp.mode === 'add' ? 'add' : 'update',
      columns: { debtorExternalId: column('debtor_external_id'), debtExternalId: column('debt_external_id'), debtCurrency: column('debt_currency') },
    };
  }
}
