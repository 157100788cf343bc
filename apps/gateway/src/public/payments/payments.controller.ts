import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  AppError, isId, ItemBody, ListBody, ListPaymentsQueryDto, PaymentView, RegisterPaymentDto, RpcPattern,
} from '@dc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequiresScope } from '../../auth/requires-scope.decorator';
import { CoreClient } from '../../core-client/core-client';
import { ApiDoc } from '../../openapi/api-doc.decorator';

@Controller('payments')
export class PaymentsController {
  constructor(private readonly core: CoreClient) {}

  @Get()
  @RequiresScope('read')
  @ApiDoc({
    summary: 'List payments',
    description:
      'Filters: portfolioId, debtorId, from, to. from/to are compared as text with paymentDate: from=<date> includes the whole day; ' +
      'to=<date> excludes payments of that day stored with a time (use to=<date>T23:59:59Z to include them).',
    returns: 'PaymentView',
    list: true,
  })
  list(@Query() query: ListPaymentsQueryDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ListBody<PaymentView>> {
    return this.core.forward(req, res, RpcPattern.PaymentsList, query);
  }

  @Get(':id')
  @RequiresScope('read')
  @ApiDoc({ summary: 'One payment', returns: 'PaymentView' })
  get(@Param('id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ItemBody<PaymentView>> {
    if (!isId('pay', id)) throw AppError.notFound('payment');
    return this.core.forward(req, res, RpcPattern.PaymentsGet, { id });
  }

  /** 201 on creation, 200 for an identical retry (same externalId and portfolio), 409 otherwise. */
  @Post()
  @RequiresScope('write')
  @ApiDoc({
    summary: 'Register a payment',
    description:
      'externalId is the client idempotency key within the portfolio: an identical retry answers 200 with the existing payment; ' +
      'the same externalId with any other field different is 409 idempotency_conflict. Currency omitted: the debt\'s, else the single ' +
      'currency of the debtor\'s live debts, else the portfolio\'s main currency. Emits payment.registered.',
    returns: 'PaymentView',
    alsoStatus: [{ status: 200, description: 'Identical retry: the existing payment, nothing created' }],
    errors: ['not_found', 'idempotency_conflict'],
  })
  register(@Body() body: RegisterPaymentDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ItemBody<PaymentView>> {
    // Ids that cannot exist answer as missing ones, without a hop.
    if (!isId('pf', body.portfolioId)) throw AppError.notFound('portfolio');
    if (!isId('dbt', body.debtorId)) throw AppError.notFound('debtor');
    // An optional field sent as null is absent, as for currency, method and reference.
    if (body.debtId !== undefined && body.debtId !== null && !isId('debt', body.debtId)) throw AppError.notFound('debt');
    return this.core.forward(req, res, RpcPattern.PaymentsRegister, body);
  }
}
