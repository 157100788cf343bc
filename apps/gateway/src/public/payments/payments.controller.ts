import { Body, Controller, Param, Query } from '@nestjs/common';
import { AppError, isId, ListPaymentsQueryDto, PaymentsRpc, RegisterPaymentDto } from '@dc/contracts';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, PublicCaller } from '../../core-client/core-client';
import { cappedScanDoc } from '../../routes/capped-scan-doc';
import { PublicRoute } from '../../routes/public-route.decorator';

@Controller('payments')
export class PaymentsController {
  constructor(private readonly core: CoreClient) {}

  @PublicRoute({
    method: 'GET',
    scope: 'read',
    rpc: PaymentsRpc.list,
    doc: {
      summary: 'List payments',
      description:
        'Filters: portfolioId, debtorId, from, to. from/to are compared as text with paymentDate: from=<date> includes the whole day; ' +
        'to=<date> excludes payments of that day stored with a time (use to=<date>T23:59:59Z to include them). ' +
        `${cappedScanDoc('from or to', 'payments')} ` +
        'Payments of a deleted or erased debtor stay listed (financial history); once the debtor is erased at the data subject\'s request, reference is null.',
      returns: 'PaymentView',
      list: true,
    },
  })
  list(@Query() query: ListPaymentsQueryDto, @Caller() caller: PublicCaller) {
    return this.core.send(PaymentsRpc.list, caller, query);
  }

  @PublicRoute({
    method: 'GET',
    path: ':id',
    scope: 'read',
    rpc: PaymentsRpc.get,
    doc: {
      summary: 'One payment',
      description: 'A payment of a deleted or erased debtor stays readable; once the debtor is erased at the data subject\'s request, reference is null.',
      returns: 'PaymentView',
    },
  })
  get(@Param('id') id: string, @Caller() caller: PublicCaller) {
    if (!isId('pay', id)) throw AppError.notFound('payment');
    return this.core.send(PaymentsRpc.get, caller, { id });
  }

  /** 201 on creation, 200 for an identical retry (same externalId and portfolio), 409 otherwise: api-core chooses. */
  @PublicRoute({
    method: 'POST',
    scope: 'write',
    rpc: PaymentsRpc.register,
    doc: {
      summary: 'Register a payment',
      description:
        'externalId is the client idempotency key within the portfolio: an identical retry answers 200 with the existing payment; ' +
        'the same externalId with any other field different is 409 idempotency_conflict. Currency omitted: the debt\'s, else the single ' +
        'currency of the debtor\'s live debts, else the portfolio\'s main currency. Emits payment.registered.',
      returns: 'PaymentView',
      alsoStatus: [{ status: 200, description: 'Identical retry: the existing payment, nothing created' }],
      errors: ['not_found', 'idempotency_conflict'],
    },
  })
  register(@Body() body: RegisterPaymentDto, @Caller() caller: PublicCaller) {
    // Ids that cannot exist answer as missing ones, without a hop.
    if (!isId('pf', body.portfolioId)) throw AppError.notFound('portfolio');
    if (!isId('dbt', body.debtorId)) throw AppError.notFound('debtor');
    // An optional field sent as null is absent, as for currency, method and reference.
    if (body.debtId !== undefined && body.debtId !== null && !isId('debt', body.debtId)) throw AppError.notFound('debt');
    return this.core.send(PaymentsRpc.register, caller, body);
  }
}
