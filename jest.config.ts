import type { Config } from 'jest';

// One `jest` run covers every project: the pure unit tests of each project and the API's
// integration tests on a real, embedded PostgreSQL.
const config: Config = {
  projects: ['<rootDir>/libs/domain', '<rootDir>/apps/scanner', '<rootDir>/apps/api'],
  reporters: ['default', '<rootDir>/tools/jest/summary-reporter.js'],
};

export default config;
