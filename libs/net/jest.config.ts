import type { Config } from 'jest';

const config: Config = {
  displayName: 'net',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};

export default config;
