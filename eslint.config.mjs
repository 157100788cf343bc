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
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'libs/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
