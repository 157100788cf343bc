import { DynamicModule, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import type { AppConfig } from '@dc/config';
import { Database } from '@dc/database';
import type { Logger } from '@dc/observability';
import { NatsBus, PayloadStore } from '@dc/transport';
import { ApiKeysHandlers } from './api-keys/api-keys.handlers';
import { ApiKeysRepository } from './api-keys/api-keys.repository';
import { ApiKeysService } from './api-keys/api-keys.service';
import { AuthHandlers } from './auth/auth.handlers';
import { AuthInvalidator } from './auth/auth-invalidator';
import { AuthRepository } from './auth/auth.repository';
import { CallsHandlers } from './calls/calls.handlers';
import { CallsRepository } from './calls/calls.repository';
import { CampaignsHandlers } from './campaigns/campaigns.handlers';
import { CampaignsRepository } from './campaigns/campaigns.repository';
import { DebtorsHandlers } from './debtors/debtors.handlers';
import { DebtorsRepository } from './debtors/debtors.repository';
import { DebtsHandlers } from './debts/debts.handlers';
import { DebtsRepository } from './debts/debts.repository';
import { DebtorBatchHandlers } from './debtor-batch/debtor-batch.handlers';
import { DebtorBatchRepository } from './debtor-batch/debtor-batch.repository';
import { WriteDebtorBatchUseCase } from './debtor-batch/write-debtor-batch.usecase';
import { OrganizationsHandlers } from './organizations/organizations.handlers';
import { OrganizationsRepository } from './organizations/organizations.repository';
import { PaymentsHandlers } from './payments/payments.handlers';
import { PaymentsRepository } from './payments/payments.repository';
import { RegisterPaymentUseCase } from './payments/register-payment.usecase';
import { PortfoliosHandlers } from './portfolios/portfolios.handlers';
import { PortfoliosRepository } from './portfolios/portfolios.repository';
import { OutboxWriter } from './outbox/outbox.writer';
import { PromisesHandlers } from './promises/promises.handlers';
import { PromisesRepository } from './promises/promises.repository';
import { RpcReplyInterceptor } from './rpc/rpc-reply.interceptor';
import { CONFIG, LOGGER } from './tokens';

export interface ApiCoreDependencies {
  config: AppConfig;
  logger: Logger;
  database: Database;
  bus: NatsBus;
  payloads: PayloadStore;
}

@Module({})
export class AppModule {
  static register(deps: ApiCoreDependencies): DynamicModule {
    return {
      module: AppModule,
      controllers: [AuthHandlers, PortfoliosHandlers, OrganizationsHandlers, ApiKeysHandlers, PaymentsHandlers,
        DebtorsHandlers, DebtsHandlers, CallsHandlers, PromisesHandlers, CampaignsHandlers, DebtorBatchHandlers],
      providers: [
        { provide: CONFIG, useValue: deps.config },
        { provide: LOGGER, useValue: deps.logger },
        { provide: Database, useValue: deps.database },
        { provide: NatsBus, useValue: deps.bus },
        { provide: PayloadStore, useValue: deps.payloads },
        { provide: APP_INTERCEPTOR, useClass: RpcReplyInterceptor },
        AuthInvalidator,
        AuthRepository,
        PortfoliosRepository,
        OrganizationsRepository,
        ApiKeysRepository,
        ApiKeysService,
        DebtorsRepository,
        DebtsRepository,
        OutboxWriter,
        PaymentsRepository,
        RegisterPaymentUseCase,
        CallsRepository,
        PromisesRepository,
        CampaignsRepository,
        DebtorBatchRepository,
        WriteDebtorBatchUseCase,
      ],
    };
  }
}
