import type { Config } from 'jest';

// One `jest` run covers every project: the pure unit tests of each project, the API's
// integration tests on a real, embedded PostgreSQL and the web interface's browser tests.
const config: Config = {
  projects: [
    '<rootDir>/libs/domain',
    '<rootDir>/libs/net',
    '<rootDir>/apps/scanner',
    '<rootDir>/apps/api',
    '<rootDir>/apps/web',
    '<rootDir>/apps/web-e2e',
  ],
  reporters: ['default', '<rootDir>/tools/jest/summary-reporter.js'],
  // A run-wide option: Jest ignores it in a project's own config. Integration tests sign in with
  // real scrypt hashes (a few hundred milliseconds each) on a 2-core machine.
  testTimeout: 30_000,
};

export default config;
