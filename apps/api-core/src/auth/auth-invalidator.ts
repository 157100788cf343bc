import { Injectable } from '@nestjs/common';
import { AUTH_INVALIDATION_SUBJECT, AuthInvalidation } from '@dc/contracts';
import { NatsBus } from '@dc/transport';

/**
 * Tells every gateway to forget the cached keys of an organization after an operator change, so
 * revocations, scope, reach, suspension and portfolio changes (the cached /me's portfolioCount)
 * take effect at once rather than within the 60 s cache window. Call it once the change is
 * committed. Best effort: a gateway that misses the message still expires its cache in 60 s.
 */
@Injectable()
export class AuthInvalidator {
  constructor(private readonly bus: NatsBus) {}

  async organizationChanged(organizationId: string): Promise<void> {
    const message: AuthInvalidation = { organizationId };
    this.bus.publish(AUTH_INVALIDATION_SUBJECT, message);
    // The change's reply leaves on another connection: once the server has the message (flush), every
    // gateway has it queued before the operator is answered, so no read after the answer is stale.
    await this.bus.flush().catch(() => undefined);
  }
}
