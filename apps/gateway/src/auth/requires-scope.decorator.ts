import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import type { Scope } from '@dc/contracts';
import { AuthGuard } from './auth.guard';
import { RateLimitGuard } from '../rate-limit/rate-limit.guard';
import { ScopeGuard } from './scope.guard';

export const REQUIRED_SCOPE = 'dc:required-scope';

/**
 * Every public route carries this (a unit test enforces it): it sets the scope and applies the
 * guards in their order — authentication, rate limit (charged even if the request is refused
 * later, so every response carries the consumption headers), then scope — so no route can be
 * half-protected. Route-specific policies (@RateCost, @Idempotent) have their own decorators.
 */
export function RequiresScope(scope: Scope): MethodDecorator {
  return applyDecorators(SetMetadata(REQUIRED_SCOPE, scope), UseGuards(AuthGuard, RateLimitGuard, ScopeGuard));
}
