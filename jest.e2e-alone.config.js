/**
 * End-to-end files whose targets are timings (the noisy-neighbour suite compares one tenant's
 * latencies beside another's load with the same tenant's quiet run): they run after the others,
 * one at a time, so another test file's CPU does not show up in their figures.
 */
const e2e = require('./jest.e2e.config');

module.exports = {
  ...e2e,
  displayName: 'e2e-alone',
  testMatch: require('./jest.e2e-alone.files'),
  testPathIgnorePatterns: ['/node_modules/'],
  maxWorkers: 1,
};
