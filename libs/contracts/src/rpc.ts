import { ErrorCode } from './errors/error-code';
import { ErrorIssue } from './errors/app-error';

/**
 * NATS subjects served by api-core (before the deployment's subject namespace is prepended).
 * One queue group, "api-core", so each request is handled by exactly one replica.
 */
export const RpcPattern = {
  AuthVerifyKey: 'auth.verify-key',
  MeGet: 'me.get',
  PortfoliosList: 'portfolios.list',
  PortfoliosGet: 'portfolios.get',
  PaymentsList: 'payments.list',
  PaymentsGet: 'payments.get',
  PaymentsRegister: 'payments.register',
  DebtorsList: 'debtors.list',
  DebtorsGet: 'debtors.get',
  DebtsList: 'debts.list',
  DebtsGet: 'debts.get',
  DebtorBatchWrite: 'debtors.batch-write',
  OperatorOrganizationCreate: 'operator.organizations.create',
  OperatorOrganizationUpdate: 'operator.organizations.update',
  OperatorPortfolioCreate: 'operator.portfolios.create',
  OperatorPortfolioUpdate: 'operator.portfolios.update',
  OperatorApiKeyCreate: 'operator.api-keys.create',
  OperatorApiKeyUpdate: 'operator.api-keys.update',
  OperatorApiKeyRevoke: 'operator.api-keys.revoke',
  OperatorPaymentRegister: 'operator.payments.register',
  OperatorDebtorDelete: 'operator.debtors.delete',
  OperatorDebtorErase: 'operator.debtors.erase',
  CallsList: 'calls.list',
  CallsGet: 'calls.get',
  PromisesList: 'promises.list',
  CampaignsList: 'campaigns.list',
  CampaignsGet: 'campaigns.get',
  OperatorCallCreate: 'operator.calls.create',
  OperatorCallUpdate: 'operator.calls.update',
  OperatorPromiseCreate: 'operator.promises.create',
  OperatorPromiseSetStatus: 'operator.promises.set-status',
  OperatorPromiseFulfil: 'operator.promises.fulfil',
  OperatorCampaignCreate: 'operator.campaigns.create',
  OperatorCampaignTransition: 'operator.campaigns.transition',
} as const;
export type RpcPattern = (typeof RpcPattern)[keyof typeof RpcPattern];

export const API_CORE_QUEUE_GROUP = 'api-core';

/** Broadcast (no queue group) when a key, organization or portfolio changes: gateways drop cached keys. */
export const AUTH_INVALIDATION_SUBJECT = 'auth.invalidate';
export interface AuthInvalidation {
  organizationId: string;
}

/** Who is calling, as established by the gateway; every public RPC carries it. */
export interface AuthContext {
  organizationId: string;
  apiKeyId: string;
  /** The key's portfolio restriction; empty means every active portfolio of the organization. */
  portfolioIds: string[];
}

/** A public RPC request: the caller plus the already-validated input. */
export interface PublicRequest<T = Record<string, never>> {
  auth: AuthContext;
  input: T;
}

/**
 * What api-core answers. `body` is the exact HTTP body of a success, so the gateway serialises it
 * once and never reshapes it.
 */
export type RpcReply<T = unknown> =
  | { ok: true; status: number; body: T }
  | { ok: false; error: { code: ErrorCode; message: string; issues?: ErrorIssue[]; retryAfterSeconds?: number } };

export const REQUEST_ID_HEADER = 'x-request-id';
/** When the gateway stops waiting for the reply (epoch ms): api-core does not start work after it. */
export const DEADLINE_HEADER = 'x-deadline';
