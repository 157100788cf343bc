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
 * Columns of a single-row read on `portfolios p` that check what an intake names, so a write reads
 * all it decides on in one statement: `debtorLive`, whether the debtor is a live (neither deleted
 * nor erased) debtor of the portfolio.
 */
export function liveDebtorColumn(debtorId: string): Prisma.Sql {
  return Prisma.sql`EXISTS (SELECT 1 FROM debtors d WHERE d.id = ${debtorId} AND d.portfolio_id = p.id AND d.deleted_at IS NULL AND d.erased_at IS NULL) AS "debtorLive"`;
}

/** `debtCurrency`: the currency of the named debt when it is a live debt of that debtor in the portfolio; null otherwise (or when none is named). */
export function liveDebtCurrencyColumn(debtorId: string, debtId: string | null): Prisma.Sql {
  return Prisma.sql`(SELECT dt.currency FROM debts dt WHERE dt.id = ${debtId}::text AND dt.debtor_id = ${debtorId} AND dt.portfolio_id = p.id AND dt.deleted_at IS NULL) AS "debtCurrency"`;
}

/**
 * Lookups several features share, written once: a portfolio for operator intake or inside a key's
 * reach. Pass `tx` to read inside the caller's transaction.
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
}
