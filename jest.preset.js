// Shared by every project's jest config: SWC transpiles TypeScript (type checking is the
// `typecheck` target's job), with the decorator metadata NestJS needs.
const path = require('node:path');

const ESM_ONLY_PACKAGES = ['openid-client', 'oauth4webapi', 'jose', 'oidc-provider'];
const ESM_ONLY_PATTERN = `/node_modules/(${ESM_ONLY_PACKAGES.join('|')})/.+\\.js$`;

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
    // The ESM-only packages the API and its tests load (docs/decisions/0008-openid-connect.md):
    // Jest's module system cannot require() ES modules on Node 20, so SWC rewrites them to CommonJS.
    [ESM_ONLY_PATTERN]: [
      '@swc/jest',
      { swcrc: false, jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY_PACKAGES.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@certkeeper/domain$': path.join(__dirname, 'libs/domain/src/index.ts'),
    '^@certkeeper/domain/x509$': path.join(__dirname, 'libs/domain/src/x509/index.ts'),
    '^@certkeeper/domain/trust$': path.join(__dirname, 'libs/domain/src/trust/index.ts'),
    '^@certkeeper/domain/saml$': path.join(__dirname, 'libs/domain/src/saml/index.ts'),
    '^@certkeeper/domain/tls$': path.join(__dirname, 'libs/domain/src/tls/index.ts'),
    '^@certkeeper/domain/templates$': path.join(__dirname, 'libs/domain/src/templates/index.ts'),
    '^@certkeeper/domain/protocol$': path.join(__dirname, 'libs/domain/src/scanner-protocol.ts'),
    '^@certkeeper/domain/discovery$': path.join(__dirname, 'libs/domain/src/discovery/index.ts'),
    '^@certkeeper/domain/roles$': path.join(__dirname, 'libs/domain/src/roles.ts'),
    '^@certkeeper/domain/lifetime-thresholds$': path.join(__dirname, 'libs/domain/src/lifetime-thresholds.ts'),
    '^@certkeeper/domain/testing$': path.join(__dirname, 'libs/domain/testing/index.ts'),
    '^@certkeeper/net$': path.join(__dirname, 'libs/net/src/index.ts'),
    '^@certkeeper/net/heap-growth$': path.join(__dirname, 'libs/net/src/heap-growth.ts'),
    '^@certkeeper/net/testing$': path.join(__dirname, 'libs/net/testing/index.ts'),
  },
};
