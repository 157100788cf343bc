import { Injectable } from '@nestjs/common';
import { AppError } from '@dc/contracts';
import { PortfoliosRepository } from './portfolios.repository';

/**
 * A list of portfolios chosen by the operator for something of one organization (an API key's
 * restriction, a webhook's filter): every id must be a portfolio of that organization.
 */
@Injectable()
export class PortfolioSelection {
  constructor(private readonly portfolios: PortfoliosRepository) {}

  /** The ids without duplicates; 400 validation_error naming `portfolioIds` when one is not of the organization. */
  async ofOrganization(organizationId: string, ids: string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return [];
    const known = await this.portfolios.idsOfOrganization(organizationId, unique);
    const unknown = unique.filter((id) => !known.has(id));
    if (unknown.length) {
      throw AppError.validation(`portfolioIds contains portfolios that are not of this organization: ${unknown.join(', ')}`, [
        { message: 'not a portfolio of this organization', path: 'portfolioIds' },
      ]);
    }
    return unique;
  }
}
