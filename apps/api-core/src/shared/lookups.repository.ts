import { Injectable } from '@nestjs/common';
import { AuthContext } from '@dc/contracts';
import { Database, Prisma, Tx } from '@dc/database';
import { reachablePortfolioSql } from '../reach/reach.repository';

/** What intake and payment registration need to know about a portfolio (events carry the organization). */
export interface IntakePortfolio {
  id: string;
  organizationId: string;
  identityCurrency: string[];
}

const INTAKE_PORTFOLIO = { id: true, organizationId: true, identityCurrency: true } as const;

/**
 * Lookups several features share, written once: a portfolio for operator intake or inside a key's
 * reach, a live debtor, a live debt. Pass `tx` to read inside the caller's transaction.
 */
@Injectable()
export class LookupsRepository {
  constructor(private readonly db: Database) {}

  /** Operator intake: any existing portfolio (the operator is not bound by a key's reach). */
  findPortfolio(id: string, tx: Tx = this.db.client): Promise<IntakePortfolio | null> {
    return tx.portfolio.findUnique({ where: { id }, select: INTAKE_PORTFOLIO });
  }

  /** Public writes: the portfolio only when the key reaches it (reach/reach.repository.ts). */
  async findReachablePortfolio(auth: AuthContext, id: string): Promise<IntakePortfolio | null> {
    const rows = await this.db.prepared<IntakePortfolio>(Prisma.sql`
      SELECT p.id, p.organization_id AS "organizationId", p.identity_currency AS "identityCurrency"
      FROM portfolios p
      WHERE p.id = ${id} AND ${reachablePortfolioSql(auth)}`);
    return rows[0] ?? null;
  }

  /** A live (neither deleted nor erased) debtor of the portfolio. */
  async liveDebtorExists(tx: Tx, portfolioId: string, debtorId: string): Promise<boolean> {
    const row = await tx.debtor.findFirst({ where: { id: debtorId, portfolioId, deletedAt: null, erasedAt: null }, select: { id: true } });
    return row !== null;
  }

  /** A live (not deleted) debt of that debtor in that portfolio. */
  findLiveDebt(tx: Tx, portfolioId: string, debtorId: string, debtId: string): Promise<{ id: string; currency: string } | null> {
    return tx.debt.findFirst({ where: { id: debtId, debtorId, portfolioId, deletedAt: null }, select: { id: true, currency: true } });
  }
}
