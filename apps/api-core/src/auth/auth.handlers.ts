import { Controller } from '@nestjs/common';
import { AuthRpc, VerifyKeyInput } from '@dc/contracts';
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
}
