import { Module } from '@nestjs/common';
import { OrganizationsModule } from '../organizations/organizations.module';
import { PortfoliosHandlers } from './portfolios.handlers';
import { PortfoliosRepository } from './portfolios.repository';
import { PortfoliosService } from './portfolios.service';

/** Exports its repository: API keys check their portfolio restriction with it. */
@Module({
  imports: [OrganizationsModule],
  controllers: [PortfoliosHandlers],
  providers: [PortfoliosService, PortfoliosRepository],
  exports: [PortfoliosRepository],
})
export class PortfoliosModule {}
