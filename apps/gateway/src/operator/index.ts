import { OperatorApiKeysController } from './api-keys/api-keys.controller';
import { OperatorCallsController } from './calls/calls.controller';
import { OperatorCampaignsController } from './campaigns/campaigns.controller';
import { OperatorDebtorsController } from './debtors/debtors.controller';
import { OperatorImportsController } from './imports/imports.controller';
import { OperatorOrganizationsController } from './organizations/organizations.controller';
import { OperatorPaymentsController } from './payments/payments.controller';
import { OperatorPortfoliosController } from './portfolios/portfolios.controller';
import { OperatorPromisesController } from './promises/promises.controller';
import { OperatorWebhooksController } from './webhooks/webhooks.controller';

/**
 * Controllers of the operator listener (under /operator/v1; README, Operator API): each
 * behind OperatorTokenGuard, every route forwarded to api-core by its operator contract.
 */
export const OPERATOR_CONTROLLERS = [
  OperatorOrganizationsController,
  OperatorPortfoliosController,
  OperatorApiKeysController,
  OperatorPaymentsController,
  OperatorDebtorsController,
  OperatorCallsController,
  OperatorPromisesController,
  OperatorCampaignsController,
  OperatorWebhooksController,
  OperatorImportsController,
];
