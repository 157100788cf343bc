import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import type { AppConfig } from '@dc/config';
import type { Logger } from '@dc/observability';
import type { ObjectStorage } from '@dc/storage';
import { Authenticator } from './auth/authenticator';
import { OperatorTokenGuard } from './auth/operator-token.guard';
import { CoreClient } from './core-client/core-client';
import { CoreReplyInterceptor } from './core-client/core-reply.interceptor';
import { AppExceptionFilter } from './errors/app-exception.filter';
import { createValidationPipe } from './http/validation.pipe';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { OPERATOR_CONTROLLERS } from './operator';
import { PUBLIC_CONTROLLERS } from './public';
import { RateLimitPolicy } from './rate-limit/rate-limit.policy';
import { RateLimiter } from './rate-limit/rate-limiter';
import { PublicRouteGuard } from './routes/public-route.guard';
import { CONFIG, LOGGER, STORAGE } from './tokens';

export interface GatewayDependencies {
  config: AppConfig;
  logger: Logger;
  core: CoreClient;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  idempotency: IdempotencyStore;
  metrics: GatewayMetrics;
  /** Read only: the rejected-rows files the importer stores (the upload route writes through its own). */
  storage: ObjectStorage;
}

function shared(deps: GatewayDependencies) {
  return [
    { provide: CONFIG, useValue: deps.config },
    { provide: LOGGER, useValue: deps.logger },
    { provide: CoreClient, useValue: deps.core },
    { provide: Authenticator, useValue: deps.authenticator },
    { provide: RateLimiter, useValue: deps.rateLimiter },
    { provide: IdempotencyStore, useValue: deps.idempotency },
    { provide: GatewayMetrics, useValue: deps.metrics },
    { provide: STORAGE, useValue: deps.storage },
    { provide: APP_FILTER, useClass: AppExceptionFilter },
    { provide: APP_PIPE, useFactory: createValidationPipe },
  ];
}

@Module({})
export class PublicApiModule {
  /** `extraControllers`: routes only the test entry point adds (apps/gateway/testing). */
  static register(deps: GatewayDependencies, extraControllers: Type[] = []): DynamicModule {
    return {
      module: PublicApiModule,
      controllers: [...PUBLIC_CONTROLLERS, ...extraControllers],
      providers: [...shared(deps), PublicRouteGuard, RateLimitPolicy, IdempotencyInterceptor, CoreReplyInterceptor],
    };
  }
}

@Module({})
export class OperatorApiModule {
  static register(deps: GatewayDependencies): DynamicModule {
    return {
      module: OperatorApiModule,
      controllers: OPERATOR_CONTROLLERS,
      providers: [...shared(deps), OperatorTokenGuard],
    };
  }
}
