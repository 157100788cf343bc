import { ApiKeysRpc } from '../api-keys/api-keys.rpc';
import { AuthRpc } from '../auth/auth.rpc';
import { CallsRpc } from '../calls/calls.rpc';
import { CampaignsRpc } from '../campaigns/campaigns.rpc';
import { DebtorsRpc } from '../debtors/debtors.rpc';
import { DebtsRpc } from '../debts/debts.rpc';
import { EventsRpc } from '../events/events.rpc';
import { OrganizationsRpc } from '../organizations/organizations.rpc';
import { PaymentsRpc } from '../payments/payments.rpc';
import { PortfoliosRpc } from '../portfolios/portfolios.rpc';
import { PromisesRpc } from '../promises/promises.rpc';
import { WebhooksRpc } from '../webhooks/webhooks.rpc';
import { ImportsRpc } from '../imports/imports.rpc';
import { AnyContract, contractsOf } from './contract';

/** Every pattern api-core must serve, each exactly once (checked at api-core's start-up). */
export const RPC_CONTRACTS: readonly AnyContract[] = contractsOf([
  AuthRpc, OrganizationsRpc, PortfoliosRpc, ApiKeysRpc, PaymentsRpc, DebtorsRpc, DebtsRpc, CallsRpc, PromisesRpc, CampaignsRpc, WebhooksRpc, ImportsRpc, EventsRpc,
]);
