import { AppError, DebtorBatchLimits, ErrorCode } from '@dc/contracts';
import type { FastifyRequest } from 'fastify';

const LOAD_FLOW =
  'Send larger loads as a CSV file through the portfolio load flow: POST /v1/portfolios/{id}/imports/upload-url, upload the file, ' +
  'then POST /v1/portfolios/{id}/imports.';

/**
 * Size checks of the debtor batch (spec rule 13), before schema validation (PublicRouteGuard runs
 * it after authentication, rate limit and scope). Body bytes first, then items.
 */
export function debtorBatchSizeLimit(request: FastifyRequest): void {
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
}
