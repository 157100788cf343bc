import { RateLimitGuard } from '../../rate-limit/rate-limit.guard';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import { AuthGuard } from '../../auth/auth.guard';
import { ScopeGuard } from '../../auth/scope.guard';
import { DebtorBatchSizeGuard } from './batch-size.guard';
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { DebtorBatchController, encodeDebtors } from './debtor-batch.controller';

describe('DebtorBatchController guards', () => {
  it('runs authentication, scope, then the size checks', () => {
    const guards = Reflect.getMetadata(GUARDS_METADATA, DebtorBatchController.prototype.write);
    expect(guards).toEqual([AuthGuard, RateLimitGuard, ScopeGuard, DebtorBatchSizeGuard]);
  });
});

describe('encodeDebtors', () => {
  const make = (n: number, pad = 0) =>
    Array.from({ length: n }, (_, i) => ({ externalId: `e${i}`, identityFirstName: 'A', identityDocumentType: 't', identityDocumentNumber: 'n', identityLastName: 'x'.repeat(pad) }));

  it('sends small batches as they are', () => {
    const debtors = make(2);
    expect(encodeDebtors('pf_1', debtors)).toEqual({ portfolioId: 'pf_1', debtors });
  });

  it('gzips large batches, losslessly', () => {
    const debtors = make(500, 1000);
    const input = encodeDebtors('pf_1', debtors)!;
    expect(input.debtors).toBeUndefined();
    expect(JSON.parse(gunzipSync(Buffer.from(input.debtorsGzip!, 'base64')).toString('utf8'))).toEqual(debtors);
  });

  it('gives up (null) when even the strongest compression does not fit one message', () => {
    const random = Array.from({ length: 3000 }, (_, i) => ({ externalId: `e${i}`, identityFirstName: randomBytes(600).toString('base64'), identityDocumentType: 't', identityDocumentNumber: 'n' }));
    expect(encodeDebtors('pf_1', random)).toBeNull();
  });
});
