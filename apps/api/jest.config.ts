import type { Config } from 'jest';

// Unit tests beside the code (src/**/*.spec.ts) and integration tests (test/**/*.spec.ts) that
// run the whole HTTP pipeline on a real PostgreSQL, started once per run by the global setup.
const config: Config = {
  displayName: 'api',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['reflect-metadata'],
  testTimeout: 30000,
};

export default config;
