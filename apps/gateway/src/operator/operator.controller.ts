import { Body, Controller, Delete, HttpCode, Param, Patch, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  AppError, CreateApiKeyDto, CreateOrganizationDto, CreatePortfolioDto, isId, OperatorRegisterPaymentDto, RpcPattern,
  UpdateApiKeyDto, UpdateOrganizationDto, UpdatePortfolioDto,
} from '@dc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OperatorTokenGuard } from '../auth/operator-token.guard';
import { CoreClient } from '../core-client/core-client';

/**
 * Operator API (ARCHITECTURE.md): organizations, portfolios, API keys, payment intake, debtor deletion
 * and erasure. Served on the operator listener only, behind OPERATOR_TOKEN; every call is forwarded to
 * api-core over NATS.
 */
@Controller()
@UseGuards(OperatorTokenGuard)
export class OperatorController {
  constructor(private readonly core: CoreClient) {}

  @Post('organizations')
  createOrganization(@Body() body: CreateOrganizationDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorOrganizationCreate, { body });
  }

  @Patch('organizations/:id')
  updateOrganization(@Param('id') id: string, @Body() body: UpdateOrganizationDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorOrganizationUpdate, { id, body });
  }

  @Post('organizations/:id/portfolios')
  createPortfolio(@Param('id') organizationId: string, @Body() body: CreatePortfolioDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorPortfolioCreate, { organizationId, body });
  }

  @Patch('portfolios/:id')
  updatePortfolio(@Param('id') id: string, @Body() body: UpdatePortfolioDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorPortfolioUpdate, { id, body });
  }

  @Post('organizations/:id/api-keys')
  createApiKey(@Param('id') organizationId: string, @Body() body: CreateApiKeyDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorApiKeyCreate, { organizationId, body });
  }

  @Patch('api-keys/:id')
  updateApiKey(@Param('id') id: string, @Body() body: UpdateApiKeyDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorApiKeyUpdate, { id, body });
  }

  @Post('api-keys/:id/revoke')
  revokeApiKey(@Param('id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    return this.core.forwardOperator(req, res, RpcPattern.OperatorApiKeyRevoke, { id });
  }

  /** Panel and collection-link payments: 201 with externalId null; emits payment.registered. */
  @Post('portfolios/:id/payments')
  registerPayment(@Param('id') portfolioId: string, @Body() body: OperatorRegisterPaymentDto, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    if (!isId('pf', portfolioId)) throw AppError.notFound('portfolio');
    return this.core.forwardOperator(req, res, RpcPattern.OperatorPaymentRegister, { portfolioId, body });
  }

  /** Logical deletion (never revived); the debtor's live debts are soft-deleted with it. */
  @Delete('debtors/:id')
  @HttpCode(204)
  async deleteDebtor(@Param('id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<void> {
    if (!isId('dbt', id)) throw AppError.notFound('debtor');
    await this.core.forwardOperator(req, res, RpcPattern.OperatorDebtorDelete, { id });
  }

  /** Erasure at the data subject's request: personal data wiped, externalId tombstoned. */
  @Post('debtors/:id/erase')
  eraseDebtor(@Param('id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    if (!isId('dbt', id)) throw AppError.notFound('debtor');
    return this.core.forwardOperator(req, res, RpcPattern.OperatorDebtorErase, { id });
  }
}
