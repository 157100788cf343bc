import { plainToInstance, Transform } from 'class-transformer';
import {
  ArrayMaxSize, IsArray, IsDateString, IsIn, IsNotEmpty, IsNumber, IsObject, IsOptional, IsString, Max, MaxLength, Min, ValidateNested,
} from 'class-validator';
import { CALL_DIRECTIONS, CALL_STATUSES, CallDirection, CallStatus } from './call.dto';

const DATE_TIME = { message: '$property must be an ISO 8601 date-time' };

export class CallAnalysisDto {
  @IsString() @MaxLength(10_000)
  summary!: string;

  @IsNumber({ allowNaN: false, allowInfinity: false })
  sentiment!: number;

  @IsString() @MaxLength(500)
  disposition!: string;

  @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) @MaxLength(200, { each: true })
  outcomes!: string[];
}

/** Optional call fields shared by create and update; null clears a nullable field on update. */
class CallFieldsDto {
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(64)
  campaignId?: string | null;

  @IsOptional() @IsString() @MaxLength(32)
  fromNumber?: string | null;

  @IsOptional() @IsString() @MaxLength(32)
  toNumber?: string | null;

  @IsOptional() @IsDateString({ strict: true }, DATE_TIME)
  connectedAt?: string | null;

  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 3 }) @Min(0) @Max(999_999_999)
  effectiveDurationSec?: number | null;

  @IsOptional() @IsDateString({ strict: true }, DATE_TIME)
  metricsStartTime?: string | null;

  @IsOptional() @IsDateString({ strict: true }, DATE_TIME)
  metricsEndTime?: string | null;

  @IsOptional() @IsObject({ message: 'analysis must be an object {summary, sentiment, disposition, outcomes}' }) @ValidateNested()
  // (Not @Type: it needs reflect-metadata, which unit tests importing the contracts do not load.)
  @Transform(({ value }) => (value !== null && typeof value === 'object' && !Array.isArray(value) ? plainToInstance(CallAnalysisDto, value) : value))
  analysis?: CallAnalysisDto | null;
}

/** PATCH /operator/v1/calls/{id}: fields sent overwrite. */
export class UpdateCallDto extends CallFieldsDto {
  @IsOptional() @IsIn(CALL_STATUSES, { message: `status must be one of: ${CALL_STATUSES.join(', ')}` })
  status?: CallStatus;
}

/** POST /operator/v1/portfolios/{id}/calls */
export class CreateCallDto extends CallFieldsDto {
  @IsString() @IsNotEmpty() @MaxLength(64)
  debtorId!: string;

  @IsIn(CALL_DIRECTIONS, { message: `direction must be one of: ${CALL_DIRECTIONS.join(', ')}` })
  direction!: CallDirection;

  @IsIn(CALL_STATUSES, { message: `status must be one of: ${CALL_STATUSES.join(', ')}` })
  status!: CallStatus;
}
