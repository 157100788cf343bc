import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, MaxLength } from 'class-validator';
import { parseLimit } from '../pagination';

/** `limit` and `cursor`, shared by every list endpoint. */
export class ListQueryDto {
  @Transform(({ value }) => parseLimit(value))
  @IsInt({ message: 'limit must be an integer (1 to 100; 0 or less means 50, more than 100 means 100)' })
  limit = 50;

  @IsOptional()
  @IsString({ message: 'cursor must be the nextCursor string of the previous page' })
  @MaxLength(200, { message: 'cursor must be the nextCursor string of the previous page' })
  cursor?: string;
}
