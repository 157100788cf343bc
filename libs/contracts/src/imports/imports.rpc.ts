import type { ItemBody } from '../pagination';
import { ByIdInput, operatorRpc, publicRpc } from '../rpc/contract';
import type {
  EnqueueImportInput, ImportPreviewView, ImportUploadUrlInput, ImportUploadView, ImportView, PreviewImportInput, RejectedRowsPage, RejectedRowsPageInput,
} from './import.dto';

/** The portfolio load flow: upload-url, enqueue, poll (docs/imports.md). */
export const ImportsRpc = {
  uploadUrl: publicRpc<ImportUploadUrlInput, ItemBody<ImportUploadView>>('imports.upload-url', { status: 201 }),
  enqueue: publicRpc<EnqueueImportInput, ItemBody<ImportView>>('imports.enqueue', { status: 202 }),
  get: publicRpc<ByIdInput, ItemBody<ImportView>>('imports.get'),
  preview: publicRpc<PreviewImportInput, ItemBody<ImportPreviewView>>('imports.preview'),
  /** The gateway streams the file page by page (ImportsController.rejectedRows). */
  rejectedRows: publicRpc<RejectedRowsPageInput, ItemBody<RejectedRowsPage>>('imports.rejected-rows'),
  /** Operator: a queued or processing import ends failed, reason `cancelled` (docs/adr/0043). */
  cancel: operatorRpc<ByIdInput, ItemBody<ImportView>>('operator.imports.cancel'),
} as const;
