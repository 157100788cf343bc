import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries (STYLE.md): apps never import apps; libs/contracts depends on nothing and
 * may not pull in an ORM, queue, Redis or NATS client; the gateway (scope:edge) never touches the
 * database library.
 */
export default [
  { ignores: ['**/dist', '**/node_modules', '**/generated/**', '**/*.js', '**/*.mjs', 'bench/**'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            {
              sourceTag: 'type:contracts',
              onlyDependOnLibsWithTags: [],
              bannedExternalImports: ['@prisma/*', 'pg', 'bullmq', '@nestjs/bullmq', 'ioredis', 'nats', '@nestjs/microservices', 'fastify', '@nestjs/platform-fastify'],
            },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts'] },
            { sourceTag: 'type:data', onlyDependOnLibsWithTags: ['type:contracts'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:lib'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', 'type:contracts', 'type:data', 'type:testing'] },
            { sourceTag: 'scope:edge', notDependOnLibsWithTags: ['type:data'], bannedExternalImports: ['@prisma/*', 'pg'] },
          ],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // One home per kind of code in api-core (docs/architecture.md): SQL lives in repositories, so only
    // `*.repository.ts` files import the database library (or Prisma, or pg). Besides them, only the
    // wiring that builds or hands out the Database (main.ts, shared/shared.module.ts), the runtime patches it installs and the RPC
    // dispatcher (isTransientDatabaseError: a statement the database cut off is a 503). Types are
    // free everywhere: services hold a `Tx` and run `Transactions.transaction()` without any SQL.
    files: ['apps/api-core/src/**/*.ts'],
    ignores: [
      'apps/api-core/src/**/*.repository.ts',
      'apps/api-core/src/main.ts',
      'apps/api-core/src/runtime-patches.ts',
      'apps/api-core/src/shared/shared.module.ts',
      'apps/api-core/src/rpc/rpc-dispatcher.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@dc/database',
              allowTypeImports: true,
              message: 'Only repositories (*.repository.ts) use the database; call the feature\'s repository (types such as Tx may be imported with `import type`).',
            },
          ],
          patterns: [
            {
              group: ['@prisma/*', 'pg', '**/libs/database/**', '**/generated/prisma/**'],
              allowTypeImports: true,
              message: 'Only repositories (*.repository.ts) use the database.',
            },
          ],
        },
      ],
    },
  },
  {
    // STYLE rules that lint can hold (docs/architecture.md). The base rule here, the typescript-eslint
    // one above for the database: both apply where their files overlap.
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['libs/config/src/**', 'libs/testing/src/**', '**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['zlib', 'node:zlib'].map((name) => ({
            name,
            importNames: ['gzipSync', 'gunzipSync', 'deflateSync', 'inflateSync', 'brotliCompressSync', 'brotliDecompressSync', 'unzipSync'],
            message: 'No synchronous zlib on the event loop: use the promisified async form (large messages are libs/transport\'s concern).',
          })),
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through libs/config (validated at start-up), never process.env.' },
      ],
    },
  },
  {
    // A gateway route is declared by @PublicRoute / @OperatorRoute (policies in a fixed order, the
    // contract's status) and reaches its caller through @Caller(): no bare method decorators,
    // @HttpCode, @Req/@Res or per-route interceptors.
    files: ['apps/gateway/src/**/*.controller.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@nestjs/common',
              importNames: ['Get', 'Post', 'Put', 'Patch', 'Delete', 'HttpCode', 'Req', 'Res', 'Request', 'Response', 'UseInterceptors'],
              message: 'Declare routes with @PublicRoute or @OperatorRoute (apps/gateway/src/routes) and take the caller with @Caller().',
            },
          ],
        },
      ],
    },
  },
  {
    // An api-core handler binds to its contract with @Handles (typed input and output); the raw
    // Nest microservice decorators are used only by that decorator.
    files: ['apps/api-core/src/**/*.ts'],
    ignores: ['apps/api-core/src/rpc/handles.decorator.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@nestjs/microservices',
              importNames: ['MessagePattern', 'EventPattern', 'Payload', 'Ctx'],
              message: 'Bind handlers to their contract with @Handles (apps/api-core/src/rpc/handles.decorator.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'libs/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
