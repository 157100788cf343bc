import { CanActivate, PipeTransform, UseGuards, UsePipes } from '@nestjs/common';
import { AppError, AuthContext, ErrorCode, JsonBytes, operatorRpc, publicRead, publicRpc } from '@dc/contracts';
import { runWithRequestContext } from '@dc/observability';
import pino from 'pino';
import { Writable } from 'node:stream';
import { CoreMetrics } from '../metrics/core-metrics';
import { Handles, withStatus } from './handles.decorator';
import { RpcDispatcher } from './rpc-dispatcher';

const read = publicRead<{ id: string }, { data: { id: string } }>('t.read');
const write = publicRpc<{ n: number }, { data: { n: number } }>('t.write', { status: 201, alsoStatus: [200] });
const admin = operatorRpc<{ id: string }, { data: { id: string } }>('t.admin');
const caller: AuthContext = { organizationId: 'org_1', apiKeyId: 'key_1', portfolioIds: [] };

class Handlers {
  /** What the last call received, to check how `data` is split. */
  seen: unknown[] = [];
  failWith: unknown;

  @Handles(read)
  read(input: { id: string }, auth: AuthContext) {
    this.seen = [input, auth];
    if (this.failWith) throw this.failWith;
    return { data: { id: input.id } };
  }

  @Handles(write)
  async write(input: { n: number }) {
    await Promise.resolve();
    if (input.n === 200) return withStatus(200, { data: { n: input.n } });
    if (input.n === 204) return withStatus(204, { data: { n: input.n } });
    return { data: { n: input.n } };
  }

  @Handles(admin)
  admin(input: { id: string }) {
    this.seen = [input];
    return { data: { id: input.id } };
  }
}

function setUp() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const metrics = new CoreMetrics();
  const handlers = new Handlers();
  const dispatcher = new RpcDispatcher(pino({ level: 'info' }, sink), metrics).register([Handlers], () => handlers);
  const observed = async () => (await metrics.registry.getSingleMetricAsString('api_core_rpc_duration_seconds')).split('\n').filter((l) => l.includes('_count'));
  return { dispatcher, handlers, lines, observed };
}

describe('RpcDispatcher', () => {
  it('answers a read with the contract status and its body serialised once, as JSON bytes', async () => {
    const { dispatcher, handlers, lines, observed } = setUp();
    const reply = await dispatcher.dispatch('t.read', { input: { id: 'x1' }, auth: caller });
    expect(reply).toEqual({ ok: true, status: 200, body: expect.any(JsonBytes) });
    expect(reply?.ok && Buffer.from((reply.body as JsonBytes).bytes).toString()).toBe('{"data":{"id":"x1"}}');
    expect(handlers.seen).toEqual([{ id: 'x1' }, caller]);
    expect(lines).toEqual([expect.objectContaining({ msg: 'handled', pattern: 't.read', status: 200, ms: expect.any(Number) })]);
    expect(await observed()).toEqual(['api_core_rpc_duration_seconds_count{pattern="t.read",outcome="ok"} 1']);
  });

  it('hands an operator handler the whole payload, and leaves a non-read body as an object', async () => {
    const { dispatcher, handlers } = setUp();
    expect(await dispatcher.dispatch('t.admin', { id: 'o1' })).toEqual({ ok: true, status: 200, body: { data: { id: 'o1' } } });
    expect(handlers.seen).toEqual([{ id: 'o1' }]);
  });

  it('answers withStatus with its own status when the contract allows it, and an internal error when not', async () => {
    const { dispatcher, lines } = setUp();
    expect(await dispatcher.dispatch('t.write', { input: { n: 1 }, auth: caller })).toEqual({ ok: true, status: 201, body: { data: { n: 1 } } });
    expect(await dispatcher.dispatch('t.write', { input: { n: 200 }, auth: caller })).toEqual({ ok: true, status: 200, body: { data: { n: 200 } } });
    const refused = await dispatcher.dispatch('t.write', { input: { n: 204 }, auth: caller });
    expect(refused).toEqual({ ok: false, error: { code: ErrorCode.InternalError, message: expect.stringMatching(/^An unexpected error occurred/) } });
    expect(lines.at(-1)).toEqual(expect.objectContaining({ level: 50, msg: 'handler failed', pattern: 't.write' }));
  });

  it('turns an AppError into its error reply, with issues and Retry-After', async () => {
    const { dispatcher, handlers, observed } = setUp();
    handlers.failWith = new AppError(ErrorCode.NotFound, 'Debtor not found.', undefined, 3);
    expect(await dispatcher.dispatch('t.read', { input: { id: 'x' }, auth: caller })).toEqual({
      ok: false,
      error: { code: ErrorCode.NotFound, message: 'Debtor not found.', issues: undefined, retryAfterSeconds: 3 },
    });
    expect(await observed()).toEqual([`api_core_rpc_duration_seconds_count{pattern="t.read",outcome="${ErrorCode.NotFound}"} 1`]);
  });

  it('answers 503 with Retry-After for a statement the database cut off (rolled back, safe to retry)', async () => {
    const { dispatcher, handlers, lines } = setUp();
    handlers.failWith = Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });
    expect(await dispatcher.dispatch('t.read', { input: { id: 'x' }, auth: caller })).toEqual({
      ok: false,
      error: { code: ErrorCode.ServiceUnavailable, message: expect.stringMatching(/^The database is busy/), retryAfterSeconds: 1 },
    });
    expect(lines.at(-1)).toEqual(expect.objectContaining({ level: 40, msg: 'database busy: request not carried out' }));
  });

  it('says the caller gave up when a failure comes after its deadline', async () => {
    const { dispatcher, handlers, lines } = setUp();
    handlers.failWith = new Error('connection slot refused: deadline passed');
    const reply = await runWithRequestContext({ requestId: 'req_1', deadline: Date.now() - 1 }, () => dispatcher.dispatch('t.read', { input: { id: 'x' }, auth: caller }));
    expect(reply).toEqual({ ok: false, error: { code: ErrorCode.ServiceUnavailable, message: 'The caller stopped waiting for this request.' } });
    expect(lines.at(-1)).toEqual(expect.objectContaining({ msg: 'abandoned: the caller has given up' }));
  });

  it('hides an unexpected error behind internal_error and logs it with its stack', async () => {
    const { dispatcher, handlers, lines } = setUp();
    handlers.failWith = new TypeError('boom');
    expect(await dispatcher.dispatch('t.read', { input: { id: 'x' }, auth: caller })).toEqual({
      ok: false,
      error: { code: ErrorCode.InternalError, message: 'An unexpected error occurred. Retry later; if it persists, contact support with the request id.' },
    });
    expect(lines.at(-1)).toEqual(expect.objectContaining({ level: 50, msg: 'handler failed', err: expect.objectContaining({ message: 'boom', stack: expect.stringContaining('TypeError: boom') }) }));
  });

  it('gives undefined for a pattern no handler serves (the server hands it to Nest)', () => {
    expect(setUp().dispatcher.dispatch('t.unknown', {})).toBeUndefined();
  });
});

class AllowAll implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

class Unchanged implements PipeTransform {
  transform(value: unknown): unknown {
    return value;
  }
}

describe('RpcDispatcher.register: handlers carrying Nest enhancers', () => {
  const logger = pino({ level: 'silent' });

  it('refuses a handler method with @UseGuards, naming the class, the method and the enhancer', () => {
    class GuardedHandlers {
      @UseGuards(AllowAll)
      @Handles(read)
      read(input: { id: string }) {
        return { data: { id: input.id } };
      }
    }
    const instanceOf = jest.fn(() => new GuardedHandlers());
    expect(() => new RpcDispatcher(logger, new CoreMetrics()).register([GuardedHandlers], instanceOf)).toThrow(
      'RpcDispatcher calls handlers directly and does not run Nest guards, pipes, interceptors or exception filters; remove them (or do that work in the handler):\n- GuardedHandlers.read carries @UseGuards',
    );
    expect(instanceOf).not.toHaveBeenCalled();
  });

  it('refuses every handler of a class with @UsePipes', () => {
    @UsePipes(Unchanged)
    class PipedHandlers {
      @Handles(read)
      read(input: { id: string }) {
        return { data: { id: input.id } };
      }

      @Handles(admin)
      admin(input: { id: string }) {
        return { data: { id: input.id } };
      }
    }
    expect(() => new RpcDispatcher(logger, new CoreMetrics()).register([Handlers, PipedHandlers], () => new PipedHandlers())).toThrow(
      /does not run Nest guards, pipes, interceptors or exception filters.*:\n- PipedHandlers.read carries @UsePipes \(on its class PipedHandlers\)\n- PipedHandlers.admin carries @UsePipes \(on its class PipedHandlers\)$/,
    );
  });

  it('accepts a plain handler class', async () => {
    const handlers = new Handlers();
    const dispatcher = new RpcDispatcher(logger, new CoreMetrics()).register([Handlers], () => handlers);
    expect(await dispatcher.dispatch('t.admin', { id: 'p1' })).toEqual({ ok: true, status: 200, body: { data: { id: 'p1' } } });
  });
});
