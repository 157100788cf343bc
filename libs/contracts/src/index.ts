// Shared vocabulary
export * from './errors';
export * from './pagination';
export * from './headers';
export * from './ids';
export * from './scopes';
export * from './api-key-format';
export * from './webhook-events';
export * from './erasure';
export * from './validation/iso-4217';
export * from './validation/iso-date';
export * from './validation/decimal-amount';
export * from './validation/phone';
export * from './validation/instant-bound';
export * from './common/list-query.dto';
export * from './common/query-fields';

// RPC between the gateway and api-core: the envelope, the contract type and every contract
export * from './rpc/envelope';
export * from './rpc/contract';
export * from './rpc/json-bytes';
export * from './rpc/registry';

// Features: each folder holds its DTOs, views and RPC contract
export * from './auth/auth.dto';
export * from './auth/auth.rpc';
export * from './organizations/organization.dto';
export * from './organizations/organizations.rpc';
export * from './portfolios/portfolio.view';
export * from './portfolios/portfolio.dto';
export * from './portfolios/portfolios.rpc';
export * from './api-keys/api-key.dto';
export * from './api-keys/api-keys.rpc';
export * from './payments/payment.dto';
export * from './payments/payment.view';
export * from './payments/payments.rpc';
export * from './debtors/debtor.dto';
export * from './debtors/debtor-batch.dto';
export * from './debtors/debtors.rpc';
export * from './debts/debt.dto';
export * from './debts/debts.rpc';
export * from './calls/call.dto';
export * from './calls/call-intake.dto';
export * from './calls/calls.rpc';
export * from './promises/promise.dto';
export * from './promises/promise-intake.dto';
export * from './promises/promises.rpc';
export * from './campaigns/campaign.dto';
export * from './campaigns/campaign-intake.dto';
export * from './campaigns/campaigns.rpc';
export * from './webhooks/webhook.dto';
export * from './webhooks/webhooks.rpc';
export * from './webhooks/delivery-queue';
export * from './imports/import-fields';
export * from './imports/import.dto';
export * from './imports/imports.rpc';
export * from './imports/import-queue';
