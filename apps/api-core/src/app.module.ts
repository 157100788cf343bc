import { DynamicModule, Module } from '@nestjs/common';
import { RPC_CONTRACTS } from '@dc/contracts';
import { FEATURE_MODULES, HANDLER_CLASSES } from './features';
import { assertHandlerCoverage } from './rpc/handler-coverage';
import { ApiCoreDependencies, SharedModule } from './shared/shared.module';

export type { ApiCoreDependencies } from './shared/shared.module';

@Module({})
export class AppModule {
  /**
   * The whole of api-core: the shared (global) module and every feature module. Throws before
   * anything is built when the handlers do not cover RPC_CONTRACTS exactly once each, so a
   * half-wired api-core never starts to listen.
   */
  static register(deps: ApiCoreDependencies): DynamicModule {
    assertHandlerCoverage(RPC_CONTRACTS, HANDLER_CLASSES);
    return {
      module: AppModule,
      imports: [SharedModule.register(deps), ...FEATURE_MODULES],
    };
  }
}
