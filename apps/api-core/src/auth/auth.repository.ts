import { Injectable } from '@nestjs/common';
import { AuthContext } from '@dc/contracts';
import { Database, Prisma } from '@dc/database';
import { reachablePortfolioSql } from '../reach/reach.repository';

const WITH_ORGANIZATION = { organization: { select: { id: true, name: true, status: true } } } as const;

@Injectable()
export class AuthRepository {
  constructor(private readonly db: Database) {}

  findKeyByHash(keyHash: string) {
    return this.db.client.apiKey.findUnique({ where: { keyHash }, include: WITH_ORGANIZATION });
  }

  /** How many portfolios the key reaches (GET /v1/me). */
  async countReachablePortfolios(auth: AuthContext): Promise<number> {
    const [row] = await this.db.prepared<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM portfolios p WHERE ${reachablePortfolioSql(auth)}`);
    return row.n;
  }
}
