/**
 * End-to-end tests (`apps/<app>/test/*.e2e-spec.ts`): real Postgres, Redis and NATS, the apps as
 * separate processes (a lib's own, `libs/<lib>/test/*.e2e-spec.ts`, uses the services directly).
 * Each file gets its own database and namespaces, so files run in parallel.
 */
module.exports = {
  ...require('./jest.preset'),
  displayName: 'e2e',
  testMatch: ['<rootDir>/apps/**/test/**/*.e2e-spec.ts', '<rootDir>/libs/**/test/**/*.e2e-spec.ts'],
  // Timing targets: run after these, alone (jest.e2e-alone.config.js).
  testPathIgnorePatterns: ['/node_modules/', ...require('./jest.e2e-alone.files')],
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
  testTimeout: 30_000,
  maxWorkers: 2,
};
