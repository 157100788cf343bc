/** The end-to-end files run alone (jest.e2e-alone.config.js) and left out of the parallel run. */
module.exports = ['<rootDir>/apps/gateway/test/noisy-neighbour.e2e-spec.ts'];
