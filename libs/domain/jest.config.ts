import type { Config } from 'jest';

const config: Config = {
  displayName: 'domain',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};

export default config;
