import { Injectable } from '@nestjs/common';
import { AUTH_INVALIDATION_SUBJECT, AuthInvalidation } from '@dc/contracts';
import { NatsBus } from '@dc/transport';

/**
 * Tells every gateway to forget the cached keys of an organization after an operator change, so
 * revocations, scope, reach and suspension take effect at once rather than within the 60 s cache
 * window. Best effort: a gateway that misses the message still expires its cache in 60 s.
 */
@Injectable()
export class AuthInvalidator {
  constructor(private readonly bus: NatsBus) {}

  organizationChanged(organizationId: string): void {
    const message: AuthInvalidation = { organizationId };
    this.bus.publish(AUTH_INVALIDATION_SUBJECT, message);
  }
}
