/** Unit tests: pure logic beside the code (`*.spec.ts`), no services needed. */
module.exports = {
  ...require('./jest.preset'),
  displayName: 'unit',
  testMatch: ['<rootDir>/apps/**/src/**/*.spec.ts', '<rootDir>/libs/**/src/**/*.spec.ts'],
};
