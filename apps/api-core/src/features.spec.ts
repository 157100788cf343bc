import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { RPC_CONTRACTS } from '@dc/contracts';
import { AppModule, ApiCoreDependencies } from './app.module';
import { HANDLER_CLASSES } from './features';
import { handlerCoverageProblems } from './rpc/handler-coverage';

describe('api-core wiring', () => {
  it('the real handler classes serve every RPC contract exactly once, and nothing else', () => {
    expect(handlerCoverageProblems(RPC_CONTRACTS, HANDLER_CLASSES)).toEqual([]);
  });

  it('reads the handler classes from the feature modules', () => {
    expect(HANDLER_CLASSES.map((c) => c.name)).toContain('DebtorsHandlers');
    expect(new Set(HANDLER_CLASSES).size).toBe(HANDLER_CLASSES.length);
  });

  it('every feature module resolves its dependencies (no service, database or broker is touched)', async () => {
    // The erasure key is read when the module is built (ErasureTombstones).
    const deps = { config: { erasure: { hmacKey: Buffer.alloc(32, 1) } }, logger: {}, database: {}, bus: {} } as unknown as ApiCoreDependencies;
    const app = await NestFactory.createApplicationContext(AppModule.register(deps), { logger: false, abortOnError: false });
    for (const handlers of HANDLER_CLASSES) expect(app.get(handlers, { strict: false })).toBeInstanceOf(handlers);
    await app.close();
  });
});
