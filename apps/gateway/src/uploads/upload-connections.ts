import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { LOCAL_UPLOAD_PATH } from '@dc/storage';

/** Sockets whose request is an upload being written to disk right now. */
const uploading = new WeakSet<Socket>();

export function isUploadRequest(url: string | undefined): boolean {
  return url?.startsWith(LOCAL_UPLOAD_PATH) ?? false;
}

/** Marks `socket` as carrying an upload for the duration of `work`. */
export async function whileUploading<T>(socket: Socket, work: () => Promise<T>): Promise<T> {
  uploading.add(socket);
  try {
    return await work();
  } finally {
    uploading.delete(socket);
  }
}

type Listener = (...args: never[]) => void;

/**
 * Two listener-wide limits that fit API requests but not a file of up to IMPORT_MAX_FILE_BYTES,
 * lifted for the upload route only (it runs after both listeners were installed, and wraps them):
 *
 * - `Expect: 100-continue` over the platform's 6 MB is answered 413 by body-limits.ts before the
 *   route runs. An upload instead reaches its route without a `100 Continue`: the route sends it
 *   once the URL and headers pass, so a refused upload (403, 413) is refused before its body is sent.
 * - HTTP_REQUEST_TIMEOUT_MS bounds the whole request, body included: a 1 GB file would need
 *   about 300 Mbit/s to arrive within the default 30 s. An upload being written is exempt; a stalled
 *   one is still closed by HTTP_IDLE_TIMEOUT_MS (no byte for that long), and only a holder of a
 *   valid signed URL can open one.
 */
export function letUploadsPastListenerLimits(server: Server): void {
  const onContinue = server.listeners('checkContinue') as Listener[];
  server.removeAllListeners('checkContinue');
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (isUploadRequest(req.url)) {
      server.emit('request', req, res);
      return;
    }
    if (onContinue.length === 0) {
      res.writeContinue();
      server.emit('request', req, res);
    }
    for (const listener of onContinue) (listener as (req: IncomingMessage, res: ServerResponse) => void).call(server, req, res);
  });

  const onClientError = server.listeners('clientError') as Listener[];
  server.removeAllListeners('clientError');
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Node reports a request timeout once per request; the socket stays open when nobody closes it.
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && uploading.has(socket)) return;
    if (onClientError.length === 0) socket.destroy(error);
    for (const listener of onClientError) (listener as (error: Error, socket: Socket) => void).call(server, error, socket);
  });
}
