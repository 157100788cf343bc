import { Module } from '@nestjs/common';
import { AuthInvalidator } from './auth-invalidator';
import { AuthHandlers } from './auth.handlers';
import { AuthRepository } from './auth.repository';
import { AuthService } from './auth.service';

/** Key verification for the gateways, GET /v1/me, and the invalidation other features publish. */
@Module({
  controllers: [AuthHandlers],
  providers: [AuthService, AuthRepository, AuthInvalidator],
  exports: [AuthInvalidator],
})
export class AuthModule {}
