import { Controller, Param, UseGuards } from '@nestjs/common';
import { AppError, ImportsRpc, isId } from '@dc/contracts';
import { OperatorTokenGuard } from '../../auth/operator-token.guard';
import { Caller } from '../../core-client/caller.decorator';
import { CoreClient, OperatorCaller } from '../../core-client/core-client';
import { OperatorRoute } from '../../routes/operator-route.decorator';

@Controller()
@UseGuards(OperatorTokenGuard)
export class OperatorImportsController {
  constructor(private readonly core: CoreClient) {}

  /** A queued or processing import ends failed, reason `cancelled` (200, the import); one that already ended: 409. */
  @OperatorRoute('POST', 'imports/:id/cancel', ImportsRpc.cancel)
  cancel(@Param('id') id: string, @Caller() caller: OperatorCaller) {
    if (!isId('imp', id)) throw AppError.notFound('import');
    return this.core.send(ImportsRpc.cancel, caller, { id });
  }
}
