import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { OrganizationsHandlers } from './organizations.handlers';
import { OrganizationsRepository } from './organizations.repository';
import { OrganizationsService } from './organizations.service';

/** Exports its repository: portfolios and API keys are created under an existing organization. */
@Module({
  imports: [AuthModule],
  controllers: [OrganizationsHandlers],
  providers: [OrganizationsService, OrganizationsRepository],
  exports: [OrganizationsRepository],
})
export class OrganizationsModule {}
