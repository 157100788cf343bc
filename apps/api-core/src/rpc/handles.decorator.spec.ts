import 'reflect-metadata';
import { AuthContext, ByIdInput, DebtorsRpc, ItemBody, operatorRpc, publicRpc, RPC_CONTRACTS } from '@dc/contracts';
import { assertHandlerCoverage, handlerCoverageProblems } from './handler-coverage';
import { Handles, withStatus } from './handles.decorator';

const Echo = publicRpc<{ text: string }, ItemBody<{ text: string }>>('test.echo', { status: 201, alsoStatus: [200] });
const Drop = operatorRpc<ByIdInput, void>('test.drop', { status: 204 });

class EchoHandlers {
  @Handles(Echo)
  echo(input: { text: string }, _caller: AuthContext) {
    return input.text === 'again' ? withStatus(200, { data: input }) : { data: input };
  }

  @Handles(Drop)
  async drop(_input: ByIdInput): Promise<void> {
    return undefined;
  }
}

/**
 * Compile-time checks (run by `npm run typecheck`): each @ts-expect-error below must be an error,
 * or the type-check fails. A handler whose payload or reply does not match its contract does not build.
 */
export class Mismatches {
  // @ts-expect-error the payload is not the contract's input
  @Handles(Echo) wrongInput(input: { text: number }, _caller: AuthContext) {
    return { data: { text: String(input.text) } };
  }

  // @ts-expect-error the reply is not the contract's output
  @Handles(Echo) wrongOutput(input: { text: string }, _caller: AuthContext) {
    return { data: input.text };
  }

  // @ts-expect-error an operator payload is not a public one
  @Handles(DebtorsRpc.erase) wrongAudience(input: { id: string }, caller: AuthContext) {
    return { data: { id: input.id, erasedAt: caller.organizationId } };
  }

  // @ts-expect-error a list handler answering an item
  @Handles(DebtorsRpc.list) wrongShape() {
    return { data: null };
  }
}

describe('@Handles and the start-up coverage check', () => {
  it('accepts handlers that cover every contract once', () => {
    expect(handlerCoverageProblems([Echo, Drop], [EchoHandlers])).toEqual([]);
  });

  it('names a contract without a handler', () => {
    const Orphan = operatorRpc<ByIdInput, void>('test.orphan');
    expect(handlerCoverageProblems([Echo, Drop, Orphan], [EchoHandlers])).toEqual(['no handler for RPC pattern test.orphan']);
  });

  it('names a pattern handled twice', () => {
    class Again {
      @Handles(Drop) async dropToo(_input: ByIdInput): Promise<void> {
        return undefined;
      }
    }
    expect(handlerCoverageProblems([Echo, Drop], [EchoHandlers, Again])).toEqual([
      'RPC pattern test.drop has 2 handlers: EchoHandlers.drop, Again.dropToo',
    ]);
  });

  it('names a handler of a pattern no contract declares, and refuses to start', () => {
    expect(handlerCoverageProblems([Echo], [EchoHandlers])).toEqual([
      'EchoHandlers.drop handles test.drop, which no contract in libs/contracts declares',
    ]);
    expect(() => assertHandlerCoverage([Echo], [EchoHandlers])).toThrow(/RPC handlers do not match the contracts:\n- EchoHandlers.drop/);
  });

  it('registers every contract pattern once in libs/contracts', () => {
    const patterns = RPC_CONTRACTS.map((c) => c.pattern);
    expect(new Set(patterns).size).toBe(patterns.length);
    expect(patterns).toContain('debtors.batch-write');
  });
});
