import { Transform } from 'class-transformer';
import { IsInt } from 'class-validator';
import { parseLimit } from '../pagination';
import { PageCursor } from './query-fields';

/** `limit` and `cursor`, shared by every list endpoint. */
export class ListQueryDto {
  @Transform(({ value }) => parseLimit(value))
  @IsInt({ message: 'limit must be an integer (1 to 100; 0 or less means 50, more than 100 means 100)' })
  limit = 50;

  /** Sent as the previous page's nextCursor; after validation, the id the page starts after. */
  @PageCursor()
  cursor?: string;
}
