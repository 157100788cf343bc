import { RateLimitGuard } from '../../rate-limit/rate-limit.guard';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import { AuthGuard } from '../../auth/auth.guard';
import { ScopeGuard } from '../../auth/scope.guard';
import { RequestInputGuard } from '../../http/request-input.guard';
import { DebtorBatchSizeGuard } from './batch-size.guard';
import { DebtorBatchController } from './debtor-batch.controller';

describe('DebtorBatchController guards', () => {
  it('runs authentication, scope, the size checks, then the input checks', () => {
    const guards = Reflect.getMetadata(GUARDS_METADATA, DebtorBatchController.prototype.write);
    expect(guards).toEqual([AuthGuard, RateLimitGuard, ScopeGuard, DebtorBatchSizeGuard, RequestInputGuard]);
  });
});

// encodeDebtors's tests moved with the encoding to libs/transport/src/payload-codec.spec.ts (docs/adr/0017).
