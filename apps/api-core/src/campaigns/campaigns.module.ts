import { Module } from '@nestjs/common';
import { CampaignsHandlers } from './campaigns.handlers';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService } from './campaigns.service';

@Module({
  controllers: [CampaignsHandlers],
  providers: [CampaignsService, CampaignsRepository],
})
export class CampaignsModule {}
