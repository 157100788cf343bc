import { Controller } from '@nestjs/common';
import { AuthContext, ByIdInput, EnqueueImportInput, ImportsRpc, ImportUploadUrlInput, PreviewImportInput, RejectedRowsPageInput } from '@dc/contracts';
import { Handles } from '../rpc/handles.decorator';
import { ImportsService } from './imports.service';

@Controller()
export class ImportsHandlers {
  constructor(private readonly imports: ImportsService) {}

  @Handles(ImportsRpc.uploadUrl)
  async uploadUrl(input: ImportUploadUrlInput, auth: AuthContext) {
    return { data: await this.imports.uploadUrl(auth, input) };
  }

  @Handles(ImportsRpc.enqueue)
  async enqueue(input: EnqueueImportInput, auth: AuthContext) {
    return { data: await this.imports.enqueue(auth, input) };
  }

  @Handles(ImportsRpc.preview)
  async preview(input: PreviewImportInput, auth: AuthContext) {
    return { data: await this.imports.preview(auth, input) };
  }

  @Handles(ImportsRpc.rejectedRows)
  async rejectedRows(input: RejectedRowsPageInput, auth: AuthContext) {
    return { data: await this.imports.rejectedRows(auth, input) };
  }

  @Handles(ImportsRpc.cancel)
  async cancel(input: ByIdInput) {
    return { data: await this.imports.cancel(input.id) };
  }

  @Handles(ImportsRpc.get)
  async get(input: ByIdInput, auth: AuthContext) {
    return { data: await this.imports.get(auth, input.id) };
  }
}
