import { GUARDS_METADATA } from '@nestjs/common/constants';
import { PUBLIC_ROUTE, PublicRouteOptions } from '../../routes/public-route.options';
import { PublicRouteGuard } from '../../routes/public-route.guard';
import { debtorBatchSizeLimit } from './batch-size';
import { DebtorBatchController } from './debtor-batch.controller';

describe('DebtorBatchController policies', () => {
  it("runs the public route's policies with the batch's size checks (before the input checks: PublicRouteGuard)", () => {
    const handler = DebtorBatchController.prototype.write;
    expect(Reflect.getMetadata(GUARDS_METADATA, handler)).toEqual([PublicRouteGuard]);
    expect((Reflect.getMetadata(PUBLIC_ROUTE, handler) as PublicRouteOptions).sizeLimit).toBe(debtorBatchSizeLimit);
  });
});

// encodeDebtors's tests moved with the encoding to libs/transport/src/payload-codec.spec.ts (docs/adr/0017).
