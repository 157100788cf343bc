import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import type { AppConfig } from '@dc/config';
import type { Logger } from '@dc/observability';
import { AuthGuard } from './auth/auth.guard';
import { Authenticator } from './auth/authenticator';
import { OperatorTokenGuard } from './auth/operator-token.guard';
import { ScopeGuard } from './auth/scope.guard';
import { CoreClient } from './core-client/core-client';
import { AppExceptionFilter } from './errors/app-exception.filter';
import { RequestInputInterceptor } from './http/request-input.interceptor';
import { createValidationPipe } from './http/validation.pipe';
import { OperatorController } from './operator/operator.controller';
import { OperatorIntakeController } from './operator/operator-intake.controller';
import { CallsController } from './public/calls/calls.controller';
import { CampaignsController } from './public/campaigns/campaigns.controller';
import { PromisesController } from './public/promises/promises.controller';
import { DebtorsController } from './public/debtors/debtors.controller';
import { DebtsController } from './public/debts/debts.controller';
import { MeController } from './public/me/me.controller';
import { PaymentsController } from './public/payments/payments.controller';
import { PortfoliosController } from './public/portfolios/portfolios.controller';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimiter } from './rate-limit/rate-limiter';
import { PolicyProbeController } from './testing/policy-probe.controller';
import { DebtorBatchController } from './public/debtors/debtor-batch.controller';
import { DebtorBatchSizeGuard } from './public/debtors/batch-size.guard';
import { PayloadStore } from '@dc/transport';
import { CONFIG, LOGGER } from './tokens';

export interface GatewayDependencies {
  config: AppConfig;
  logger: Logger;
  core: CoreClient;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  idempotency: IdempotencyStore;
  metrics: GatewayMetrics;
  payloads: PayloadStore;
}

/** Controllers of the public listener (under /public/v1). */
export const PUBLIC_CONTROLLERS = [MeController, PortfoliosController, PaymentsController, DebtorsController, DebtsController, CallsController, PromisesController, CampaignsController, DebtorBatchController];

/** Controllers of the operator listener (under /operator/v1), all behind OperatorTokenGuard. */
export const OPERATOR_CONTROLLERS = [OperatorController, OperatorIntakeController];

function shared(deps: GatewayDependencies) {
  return [
    { provide: CONFIG, useValue: deps.config },
    { provide: LOGGER, useValue: deps.logger },
    { provide: CoreClient, useValue: deps.core },
    { provide: Authenticator, useValue: deps.authenticator },
    { provide: RateLimiter, useValue: deps.rateLimiter },
    { provide: IdempotencyStore, useValue: deps.idempotency },
    { provide: GatewayMetrics, useValue: deps.metrics },
    { provide: PayloadStore, useValue: deps.payloads },
    { provide: APP_FILTER, useClass: AppExceptionFilter },
    { provide: APP_PIPE, useFactory: createValidationPipe },
    { provide: APP_INTERCEPTOR, useClass: RequestInputInterceptor },
  ];
}

@Module({})
export class PublicApiModule {
  static register(deps: GatewayDependencies): DynamicModule {
    return {
      module: PublicApiModule,
      // The policy probe exists only in tests (see testing/policy-probe.controller.ts).
      controllers: [...PUBLIC_CONTROLLERS, ...(deps.config.env === 'test' ? [PolicyProbeController] : [])],
      providers: [...shared(deps), AuthGuard, ScopeGuard, RateLimitGuard, IdempotencyInterceptor, DebtorBatchSizeGuard],
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
