import { CallsController } from './calls/calls.controller';
import { CampaignsController } from './campaigns/campaigns.controller';
import { DebtorBatchController } from './debtors/debtor-batch.controller';
import { DebtorsController } from './debtors/debtors.controller';
import { DebtsController } from './debts/debts.controller';
import { EventsController } from './events/events.controller';
import { ImportsController } from './imports/imports.controller';
import { MeController } from './me/me.controller';
import { PaymentsController } from './payments/payments.controller';
import { PortfoliosController } from './portfolios/portfolios.controller';
import { PromisesController } from './promises/promises.controller';

/**
 * Controllers of the public listener (under /public/v1), each route under @PublicRoute. The OpenAPI
 * document is generated from these (apps/gateway/openapi): their class names give its tags and
 * operation ids.
 */
export const PUBLIC_CONTROLLERS = [
  MeController,
  PortfoliosController,
  PaymentsController,
  DebtorsController,
  DebtsController,
  CallsController,
  PromisesController,
  CampaignsController,
  DebtorBatchController,
  ImportsController,
  EventsController,
];
