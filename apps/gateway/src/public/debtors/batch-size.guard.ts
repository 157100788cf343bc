import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AppError, DebtorBatchLimits, ErrorCode } from '@dc/contracts';
import type { FastifyRequest } from 'fastify';

const LOAD_FLOW =
  'Send larger loads as a CSV file through the portfolio load flow: POST /v1/portfolios/{id}/imports/upload-url, upload the file, ' +
  'then POST /v1/portfolios/{id}/imports.';

/**
 * Size checks of the debtor batch (spec rule 13), before schema validation: guards run before
 * pipes, and this one is applied after the auth and scope guards. Body bytes first, then items.
 */
@Injectable()
export class DebtorBatchSizeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if ((request.bodyBytes ?? 0) > DebtorBatchLimits.maxBodyBytes) {
      throw new AppError(
        ErrorCode.PayloadTooLarge,
        `The request body is larger than ${DebtorBatchLimits.maxBodyBytes} bytes (5 MB), the limit of this endpoint. ${LOAD_FLOW}`,
      );
    }
    const debtors = (request.body as { debtors?: unknown } | undefined)?.debtors;
    if (Array.isArray(debtors) && debtors.length > DebtorBatchLimits.maxDebtors) {
      throw new AppError(
        ErrorCode.PayloadTooLarge,
        `The batch has ${debtors.length} debtors; at most ${DebtorBatchLimits.maxDebtors} are accepted per request. ${LOAD_FLOW}`,
      );
    }
    return true;
  }
}
