/**
 * The end-to-end suite's short profile with every runtime patch off (RUNTIME_PATCHES_OFF=all, set
 * by `npm run test:e2e:unpatched`; docs/runtime-patches.md): reads, writes, validation errors, NATS,
 * imports and deliveries through the services as they run without any patch. The patches only save
 * CPU and memory; these files prove the system correct without them. Their own pinning tests
 * (write-coalescing, rows-as-bytes, prisma-wasm-memory, the validation specs) test each patch on.
 */
const e2e = require('./jest.e2e.config');

module.exports = {
  ...e2e,
  displayName: 'e2e-unpatched',
  testMatch: [
    '<rootDir>/apps/gateway/test/debtor-batch.e2e-spec.ts',
    '<rootDir>/apps/gateway/test/debtors-debts.e2e-spec.ts',
    '<rootDir>/apps/gateway/test/pagination.e2e-spec.ts',
    '<rootDir>/apps/gateway/test/payments.e2e-spec.ts',
    '<rootDir>/apps/gateway/test/calls-promises-campaigns.e2e-spec.ts',
    '<rootDir>/apps/gateway/test/hostile-input.e2e-spec.ts',
    '<rootDir>/apps/importer/test/imports-api.e2e-spec.ts',
    '<rootDir>/apps/webhook-dispatcher/test/delivery.e2e-spec.ts',
  ],
  testPathIgnorePatterns: ['/node_modules/'],
};
