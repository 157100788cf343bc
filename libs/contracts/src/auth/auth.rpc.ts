import type { ItemBody } from '../pagination';
import type { MeView } from '../portfolios/portfolio.view';
import { operatorRpc, publicRpc } from '../rpc/contract';
import type { VerifiedKey, VerifyKeyInput } from './auth.dto';

export const AuthRpc = {
  /** Internal: the gateway verifies a key hash (cached up to 60 s). The body is the VerifiedKey itself. */
  verifyKey: operatorRpc<VerifyKeyInput, VerifiedKey>('auth.verify-key'),
  me: publicRpc<Record<string, never>, ItemBody<MeView>>('me.get'),
} as const;
