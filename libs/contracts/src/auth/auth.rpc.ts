import { operatorRpc } from '../rpc/contract';
import type { VerifiedKey, VerifyKeyInput } from './auth.dto';

export const AuthRpc = {
  /** Internal: the gateway verifies a key hash (cached up to 60 s). The body is the VerifiedKey itself. */
  verifyKey: operatorRpc<VerifyKeyInput, VerifiedKey>('auth.verify-key'),
} as const;
