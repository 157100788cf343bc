import { AuthContext } from '@dc/contracts';
import { Prisma } from '@dc/database';

/**
 * The portfolios a key can see: active portfolios of its organization, narrowed by the key's
 * restriction. Everything outside answers 404 or is absent from lists — the same as missing.
 */
export function reachablePortfolioWhere(auth: AuthContext): Prisma.PortfolioWhereInput {
  return {
    organizationId: auth.organizationId,
    status: 'active',
    ...(auth.portfolioIds.length ? { id: { in: auth.portfolioIds } } : {}),
  };
}
