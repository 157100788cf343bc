import { ArrayMaxSize, IsArray, IsDateString, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { SCOPES } from '../scopes';

export class UpdateApiKeyDto {
  @IsOptional() @IsArray() @ArrayMaxSize(2)
  @IsIn(SCOPES, { each: true, message: `scopes items must be one of: ${SCOPES.join(', ')}` })
  scopes?: string[];

  /** Restriction to these portfolios; an empty list lifts the restriction. */
  @IsOptional() @IsArray() @ArrayMaxSize(1000) @IsString({ each: true })
  portfolioIds?: string[];

  @IsOptional() @IsDateString({ strict: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  expiresAt?: string;
}

export class CreateApiKeyDto extends UpdateApiKeyDto {
  @IsOptional() @IsString() @MaxLength(200)
  name?: string;
}

export interface ApiKeyView {
  id: string;
  organizationId: string;
  name: string;
  keyPrefix: string;
  stage: string;
  scopes: string[];
  portfolioIds: string[];
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

/** Only the creation response carries the plaintext key. */
export interface CreatedApiKeyView extends ApiKeyView {
  key: string;
}
