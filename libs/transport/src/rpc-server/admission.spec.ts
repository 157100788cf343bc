import { ErrorCode } from '@dc/contracts';
import { JSONCodec, Msg } from 'nats';
import { Admission } from './admission';

const json = JSONCodec<unknown>();

/** A received message (an event when `reply` is undefined), keeping the answers it gets. */
function message(reply: string | undefined): Msg & { answers: unknown[] } {
  const answers: unknown[] = [];
  return {
    subject: 'ns.t.read',
    sid: 1,
    reply,
    data: json.encode({ id: 'p1', data: {} }),
    answers,
    respond: (payload?: Uint8Array) => answers.push(json.decode(payload!)) > 0,
    json: <T>() => ({ id: 'p1', data: {} }) as T,
    string: () => '',
  };
}

function setUp(maxConcurrency: number) {
  const warnings: string[] = [];
  const shed: string[] = [];
  const admission = new Admission({ maxConcurrency, retryAfterSeconds: 2, log: { warn: (_obj, msg) => warnings.push(msg) }, onShed: (p) => shed.push(p) });
  return { admission, warnings, shed };
}

describe('Admission', () => {
  it('sheds a request over max concurrency at once, with its packet id and Retry-After, and admits events regardless', () => {
    const { admission, warnings, shed } = setUp(1);
    expect(admission.admit(message('_INBOX.1'), 'r1', 't.read')).toEqual(expect.any(Function));
    const refused = message('_INBOX.1');
    expect(admission.admit(refused, 'r2', 't.read')).toBeUndefined();
    expect(refused.answers).toEqual([
      { id: 'p1', isDisposed: true, response: { ok: false, error: { code: ErrorCode.ServiceUnavailable, message: expect.stringMatching(/at capacity/), retryAfterSeconds: 2 } } },
    ]);
    expect(warnings).toEqual(['shed: at max concurrency']);
    expect(shed).toEqual(['t.read']);
    expect(admission.admit(message(undefined), 'r3', 't.event')).toEqual(expect.any(Function));
    expect(admission.count).toBe(2);
  });

  it('counts a request out once: by its publisher once handed over, else on release', () => {
    const { admission } = setUp(5);
    const answered = message('_INBOX.1');
    const finish = admission.admit(answered, 'r1', 't.read')!;
    const publisherFinish = admission.handOver(answered);
    expect(publisherFinish).toBe(finish);
    admission.release(answered, finish);
    expect(admission.count).toBe(1);
    publisherFinish!();
    publisherFinish!();
    expect(admission.count).toBe(0);

    const failed = message('_INBOX.1');
    admission.release(failed, admission.admit(failed, 'r2', 't.read')!);
    expect(admission.count).toBe(0);
  });

  it('idle resolves once the last request is counted out, or after the timeout', async () => {
    const { admission } = setUp(5);
    await admission.idle(60_000);
    const msg = message('_INBOX.1');
    const finish = admission.admit(msg, 'r1', 't.read')!;
    let idle = false;
    const waiting = admission.idle(60_000).then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    admission.release(msg, finish);
    await waiting;
    expect(idle).toBe(true);

    admission.admit(message('_INBOX.1'), 'r2', 't.read');
    const started = Date.now();
    await admission.idle(20);
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    expect(admission.count).toBe(1);
  });
});
