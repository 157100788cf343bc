import {
  ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString,
  Matches, Max, MaxLength, Min,
} from 'class-validator';
import { COUNTRY_CODE_PATTERN, IsCurrencyCode } from '../validation/iso-4217';

export const PORTFOLIO_STATUSES = ['active', 'inactive'] as const;

export class UpdatePortfolioDto {
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(200)
  identityName?: string;

  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(20)
  @IsCurrencyCode({ each: true })
  identityCurrency?: string[];

  @IsOptional() @IsString() @Matches(COUNTRY_CODE_PATTERN, { message: 'identityRegion must be an ISO 3166-1 alpha-2 code' })
  identityRegion?: string;

  @IsOptional() @IsString() @MaxLength(64)
  identityTimezone?: string;

  @IsOptional() @IsString() @MaxLength(2000)
  identityDescription?: string;

  @IsOptional() @IsString() @MaxLength(100)
  identityDebtType?: string;

  @IsOptional() @IsInt() @Min(1) @Max(1000)
  operatingInfoMaxChannels?: number;

  @IsOptional() @IsBoolean()
  compliancePiiRedactionEnabled?: boolean;

  @IsOptional() @IsIn(PORTFOLIO_STATUSES, { message: `status must be one of: ${PORTFOLIO_STATUSES.join(', ')}` })
  status?: (typeof PORTFOLIO_STATUSES)[number];

  @IsOptional() @IsBoolean()
  demo?: boolean;
}

export class CreatePortfolioDto extends UpdatePortfolioDto {
  @IsString() @IsNotEmpty() @MaxLength(200)
  declare identityName: string;

  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(20)
  @IsCurrencyCode({ each: true })
  declare identityCurrency: string[];
}
