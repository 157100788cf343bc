import { UseInterceptors } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/** Honours the Idempotency-Key header on this route (see IdempotencyInterceptor). */
export const Idempotent = () => UseInterceptors(IdempotencyInterceptor);
