import type { ItemBody } from '../pagination';
import { ByIdInput, publicRpc } from '../rpc/contract';
import type { EnqueueImportInput, ImportUploadUrlInput, ImportUploadView, ImportView } from './import.dto';

/** The portfolio load flow: upload-url, enqueue, poll (docs/imports.md). */
export const ImportsRpc = {
  uploadUrl: publicRpc<ImportUploadUrlInput, ItemBody<ImportUploadView>>('imports.upload-url', { status: 201 }),
  enqueue: publicRpc<EnqueueImportInput, ItemBody<ImportView>>('imports.enqueue', { status: 202 }),
  get: publicRpc<ByIdInput, ItemBody<ImportView>>('imports.get'),
} as const;
