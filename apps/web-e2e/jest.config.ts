import type { Config } from 'jest';

// The web interface in a real browser (headless Chromium through playwright-core) against the
// real API, started in-process on the API's test database: the same global setup as the API's
// integration tests, so one run (`npm test`) starts one PostgreSQL cluster for both projects.
const config: Config = {
  displayName: 'web-e2e',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
  globalSetup: '<rootDir>/../api/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/../api/test/support/global-teardown.ts',
  setupFiles: ['reflect-metadata'],
  testTimeout: 30000,
};

export default config;
