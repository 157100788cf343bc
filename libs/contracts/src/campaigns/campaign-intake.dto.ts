import { IsDateString, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES, CampaignChannel, CampaignStatus } from './campaign.dto';

const DATE_TIME = { message: '$property must be an ISO 8601 date-time' };

/** POST /operator/v1/portfolios/{id}/campaigns: a new draft campaign. */
export class CreateCampaignDto {
  @IsString() @IsNotEmpty() @MaxLength(200)
  name!: string;

  @IsOptional() @IsString() @MaxLength(2000)
  description?: string;

  @IsOptional() @IsIn(CAMPAIGN_CHANNELS, { message: `channel must be one of: ${CAMPAIGN_CHANNELS.join(', ')}` })
  channel?: CampaignChannel;

  @IsOptional() @IsDateString({ strict: true }, DATE_TIME)
  startsAt?: string;

  @IsOptional() @IsDateString({ strict: true }, DATE_TIME)
  endsAt?: string;
}

/** POST /operator/v1/campaigns/{id}/transition */
export class CampaignTransitionDto {
  @IsIn(CAMPAIGN_STATUSES, { message: `to must be one of: ${CAMPAIGN_STATUSES.join(', ')}` })
  to!: CampaignStatus;
}
