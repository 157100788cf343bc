import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { AppError, CallsRpc, CreateCallDto, DebtorsRpc, DebtorView, DebtView, ItemBody, JsonBytes, PaymentsRpc, PortfoliosRpc, RpcReply } from '@dc/contracts';
import type { NatsBus } from '@dc/transport';
import { lastValueFrom, of } from 'rxjs';
import { CoreClient, CoreReply, OperatorCaller, PublicCaller } from './core-client';
import { CoreReplyInterceptor } from './core-reply.interceptor';

/**
 * Compile-time checks (never run: `npm run typecheck` fails if a marked line compiles, or an
 * unmarked one does not). Each contract binds its input, its output and its audience.
 */
function typedSend(core: CoreClient, pub: PublicCaller, op: OperatorCaller): void {
  const debtor: Promise<CoreReply<JsonBytes<ItemBody<DebtorView>>>> = core.send(DebtorsRpc.get, pub, { id: 'dbt_1' });
  void debtor;
  void core.send(PortfoliosRpc.update, op, { id: 'pf_1', body: { identityName: 'Renamed' } });
  void core.send(CallsRpc.create, op, { portfolioId: 'pf_1', body: {} as CreateCallDto });

  // @ts-expect-error the input of another shape than the contract's
  void core.send(DebtorsRpc.get, pub, { debtorId: 'dbt_1' });
  // @ts-expect-error a public contract needs the authenticated caller
  void core.send(DebtorsRpc.get, op, { id: 'dbt_1' });
  // @ts-expect-error an operator contract's input ({portfolioId, body}) sent to the public one
  void core.send(PaymentsRpc.register, pub, { portfolioId: 'pf_1', body: { debtorId: 'dbt_1', amount: 10, paymentDate: '2026-01-01' } });
  // @ts-expect-error the reply is typed by the contract too
  const debt: Promise<CoreReply<JsonBytes<ItemBody<DebtView>>>> = core.send(DebtorsRpc.get, pub, { id: 'dbt_1' });
  void debt;
}

function clientAnswering(reply: RpcReply) {
  const request = jest.fn(async () => reply);
  return { core: new CoreClient({ request } as unknown as NatsBus), request };
}

describe('CoreClient.send', () => {
  it('is typed by the contract (the checks above are compiled by npm run typecheck)', () => {
    expect(typedSend).toBeInstanceOf(Function);
  });


  const pub = { id: 'req_1', caller: { organizationId: 'org_1', apiKeyId: 'key_1', portfolioIds: ['pf_1'], scopes: ['read'] } } as PublicCaller;

  it('sends a public input with the caller (without its scopes) and returns the status api-core chose', async () => {
    const { core, request } = clientAnswering({ ok: true, status: 200, body: { data: { id: 'pay_1' } } });
    const reply = await core.send(PaymentsRpc.get, pub, { id: 'pay_1' });
    expect(request).toHaveBeenCalledWith('payments.get', { auth: { organizationId: 'org_1', apiKeyId: 'key_1', portfolioIds: ['pf_1'] }, input: { id: 'pay_1' } }, 'req_1');
    expect(reply).toEqual(new CoreReply(200, { data: { id: 'pay_1' } }));
  });

  it('sends an operator input as the payload itself', async () => {
    const { core, request } = clientAnswering({ ok: true, status: 204, body: undefined });
    const reply = await core.send(DebtorsRpc.delete, { id: 'req_2' }, { id: 'dbt_1' });
    expect(request).toHaveBeenCalledWith('operator.debtors.delete', { id: 'dbt_1' }, 'req_2');
    expect(reply.status).toBe(204);
  });

  it('throws a failure as an AppError', async () => {
    const { core } = clientAnswering({ ok: false, error: { code: 'not_found' as never, message: 'No such debtor.' } });
    await expect(core.send(DebtorsRpc.get, pub, { id: 'dbt_1' })).rejects.toEqual(expect.objectContaining({ code: 'not_found', message: 'No such debtor.' }));
    await expect(core.send(DebtorsRpc.get, pub, { id: 'dbt_1' })).rejects.toBeInstanceOf(AppError);
  });

  it('refuses a public contract sent without an authenticated caller', async () => {
    const { core, request } = clientAnswering({ ok: true, status: 200, body: {} });
    await expect(core.send(DebtorsRpc.get, { id: 'req_3' } as PublicCaller, { id: 'dbt_1' })).rejects.toThrow(/without an authenticated caller/);
    expect(request).not.toHaveBeenCalled();
  });
});

describe('CoreReplyInterceptor', () => {
  function run(result: unknown) {
    const response = { status: jest.fn(), type: jest.fn() };
    response.status.mockReturnValue(response);
    const context = { switchToHttp: () => ({ getResponse: () => response }) } as unknown as ExecutionContext;
    const next: CallHandler = { handle: () => of(result) };
    return { response, body: lastValueFrom(new CoreReplyInterceptor().intercept(context, next)) };
  }

  it('writes the reply status to the response and returns the body untouched', async () => {
    const body = { data: { id: 'pay_1' } };
    const { response, body: returned } = run(new CoreReply(201, body));
    expect(await returned).toBe(body);
    expect(response.status).toHaveBeenCalledWith(201);
  });

  it("writes a read's JSON bytes as they came, with the JSON content type (never parsed)", async () => {
    const bytes = Buffer.from('{"data":{"id":"dbt_1"}}');
    const { response, body } = run(new CoreReply(200, new JsonBytes(bytes)));
    const sent = (await body) as Buffer;
    expect(Buffer.isBuffer(sent)).toBe(true);
    expect(sent.buffer).toBe(bytes.buffer); // the same memory: no copy, no parse
    expect(sent.toString()).toBe('{"data":{"id":"dbt_1"}}');
    expect(response.status).toHaveBeenCalledWith(200);
    expect(response.type).toHaveBeenCalledWith('application/json; charset=utf-8');
  });

  it('passes anything else through without setting a status', async () => {
    const { response, body } = run({ data: { processed: 1 } });
    expect(await body).toEqual({ data: { processed: 1 } });
    expect(response.status).not.toHaveBeenCalled();
  });
});
