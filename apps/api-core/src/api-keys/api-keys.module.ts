import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { PortfoliosModule } from '../portfolios/portfolios.module';
import { ApiKeysHandlers } from './api-keys.handlers';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';

@Module({
  imports: [AuthModule, OrganizationsModule, PortfoliosModule],
  controllers: [ApiKeysHandlers],
  providers: [ApiKeysService, ApiKeysRepository],
})
export class ApiKeysModule {}
