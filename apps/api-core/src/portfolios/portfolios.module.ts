import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { PortfolioSelection } from './portfolio-selection';
import { PortfoliosHandlers } from './portfolios.handlers';
import { PortfoliosRepository } from './portfolios.repository';
import { PortfoliosService } from './portfolios.service';

/** Exports its repository and the portfolio-selection rule (API keys' restriction, webhooks' filter). */
@Module({
  imports: [AuthModule, OrganizationsModule],
  controllers: [PortfoliosHandlers],
  providers: [PortfoliosService, PortfoliosRepository, PortfolioSelection],
  exports: [PortfoliosRepository, PortfolioSelection],
})
export class PortfoliosModule {}
