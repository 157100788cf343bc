import type { FastifyReply } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { lingerOverUnreadBody } from './lingering-close';

/** Which early answers linger over an unread body (the reading itself: http-edge.e2e-spec.ts). */
describe('lingerOverUnreadBody', () => {
  const reply = () => ({ removeHeader: jest.fn() });
  const request = (headers: Record<string, string>) =>
    ({ complete: false, destroyed: false, headers, socket: { bytesRead: 0 }, once: jest.fn() }) as unknown as IncomingMessage;

  it('leaves a request without a body alone: no Content-Length, no Transfer-Encoding', () => {
    // light-my-request's requests never turn `complete`: a timer here destroyed a socket it does not have.
    const r = reply();
    lingerOverUnreadBody(request({}), r as unknown as FastifyReply);
    expect(r.removeHeader).not.toHaveBeenCalled();
  });

  it('keeps the connection of an unread body it will read (Content-Length or chunked)', () => {
    const bodies: Record<string, string>[] = [{ 'content-length': '10' }, { 'transfer-encoding': 'chunked' }];
    for (const headers of bodies) {
      const r = reply();
      const req = request(headers);
      lingerOverUnreadBody(req, r as unknown as FastifyReply, { maxBytes: 100, maxMs: 10 });
      expect(r.removeHeader).toHaveBeenCalledWith('connection');
      // Stop its timer as the request's close would.
      (req.once as jest.Mock).mock.calls[0][1]();
    }
  });

  it('gives up on a body that never ends within maxMs by destroying the request (its socket with it), once', () => {
    jest.useFakeTimers();
    try {
      // As Fastify's inject builds it: a request that never completes, a stand-in socket without destroy().
      const req = Object.assign(request({ 'content-length': '10' }), { destroy: jest.fn() });
      lingerOverUnreadBody(req, reply() as unknown as FastifyReply, { maxBytes: 100, maxMs: 250 });
      jest.advanceTimersByTime(200);
      expect(req.destroy).not.toHaveBeenCalled();
      jest.advanceTimersByTime(1_000);
      expect(req.destroy).toHaveBeenCalledTimes(1);
    } finally {
      jest.useRealTimers();
    }
  });

  it('closes as before when the declared body is over the limit', () => {
    const r = reply();
    lingerOverUnreadBody(request({ 'content-length': '1000' }), r as unknown as FastifyReply, { maxBytes: 100, maxMs: 10 });
    expect(r.removeHeader).not.toHaveBeenCalled();
  });
});
