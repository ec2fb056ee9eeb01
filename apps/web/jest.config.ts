import type { Config } from 'jest';

// Unit tests of the web interface's pure functions (src/**/*.spec.ts[x]), in Node: the screens
// themselves are tested in a real browser by apps/web-e2e (test/web-ui*.spec.ts).
const config: Config = {
  displayName: 'web',
  preset: '../../jest.preset.js',
  testMatch: ['<rootDir>/src/**/*.spec.{ts,tsx}'],
  // The modules under test are .tsx (a pure function beside its component): SWC compiles their JSX
  // with React's automatic runtime, as Vite does for the bundle. Merged with the preset's transforms.
  transform: {
    '^.+\\.tsx$': [
      '@swc/jest',
      {
        swcrc: false,
        jsc: { parser: { syntax: 'typescript', tsx: true }, transform: { react: { runtime: 'automatic' } }, target: 'es2022' },
        module: { type: 'commonjs' },
      },
    ],
  },
  moduleFileExtensions: ['ts', 'tsx', 'js', 'json'],
  // A module under test may sit beside a component whose imports reach the API client, which reads
  // the page's origin when loaded (api/client.ts); these tests never call the API.
  globals: { window: { location: { origin: 'http://localhost' } } },
};

export default config;
