// Shared by every project's jest config: SWC transpiles TypeScript (type checking is the
// `typecheck` target's job), with the decorator metadata NestJS needs.
const path = require('node:path');

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        // The build's .swcrc excludes tests; the test transform is configured here instead.
        swcrc: false,
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@certkeeper/domain$': path.join(__dirname, 'libs/domain/src/index.ts'),
    '^@certkeeper/domain/testing$': path.join(__dirname, 'libs/domain/src/testing.ts'),
    '^@certkeeper/net$': path.join(__dirname, 'libs/net/src/index.ts'),
    '^@certkeeper/net/testing$': path.join(__dirname, 'libs/net/testing/index.ts'),
  },
};
