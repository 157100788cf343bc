import { Controller } from '@nestjs/common';
import { AuthContext, AuthRpc, VerifyKeyInput } from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { AuthService } from './auth.service';

@Controller()
export class AuthHandlers {
  constructor(private readonly auth: AuthService) {}

  /** The body is the VerifiedKey itself (internal pattern, no envelope). */
  @Handles(AuthRpc.verifyKey)
  verify(input: VerifyKeyInput) {
    return this.auth.verify(input.keyHash);
  }

  @Handles(AuthRpc.me)
  async me(_input: Record<string, never>, auth: AuthContext) {
    return { data: await this.auth.me(auth) };
  }
}
