// Lint for bug classes, not taste: layout is Prettier's job.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const FRAMEWORK = ['@nestjs/*', 'typeorm', '@nestjs/typeorm', 'pg', 'express', 'nodemailer'];
const NETWORK_AND_FRAMEWORK = [
  ...FRAMEWORK,
  'net',
  'tls',
  'http',
  'https',
  'dgram',
  'node:net',
  'node:tls',
  'node:http',
  'node:https',
  'node:dgram',
];
// Beyond the network: the domain library takes its inputs as values, so it never reads files,
// resolves names or starts processes either.
const DOMAIN_BANNED = [
  ...NETWORK_AND_FRAMEWORK,
  ...['fs', 'fs/promises', 'dns', 'dns/promises', 'child_process'].flatMap((name) => [name, `node:${name}`]),
];

// Which project may import which (@nx/enforce-module-boundaries).
const MODULE_BOUNDARIES = {
  allow: [],
  depConstraints: [
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:domain', 'type:node', 'type:client'] },
    // Node-only utilities (libs/net) serve the plain-Node agent as well as the API: no framework.
    { sourceTag: 'type:node', onlyDependOnLibsWithTags: ['type:domain'], bannedExternalImports: FRAMEWORK },
    // The API client (libs/api-client) is the types generated from the OpenAPI description: it
    // stands on the description alone, so it depends on no other project.
    { sourceTag: 'type:client', onlyDependOnLibsWithTags: [] },
    // The domain library takes bytes and strings and returns values: no framework, no network.
    { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain'], bannedExternalImports: DOMAIN_BANNED },
    // Repository scripts (tools/) may use the libraries, never an app: a script that drives one
    // app's internals (OpenAPI export, schema diff, benchmarks) lives in that app's tools/ folder.
    { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:domain', 'type:node', 'type:client'] },
    // The browser tests (apps/web-e2e) use the libraries' test support; the API they drive is
    // reached through its own test support, allowed for them alone below.
    { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:domain', 'type:node', 'type:client'] },
    { sourceTag: 'scope:api', notDependOnLibsWithTags: ['scope:scanner', 'scope:web'] },
    { sourceTag: 'scope:scanner', notDependOnLibsWithTags: ['scope:api', 'scope:web'] },
    // The web interface runs in browsers and talks to the API only over HTTP, through the
    // client types generated from the OpenAPI description: no server code, no Node.
    {
      sourceTag: 'scope:web',
      notDependOnLibsWithTags: ['scope:api', 'scope:scanner'],
      bannedExternalImports: [...DOMAIN_BANNED, 'node:*'],
    },
  ],
};

export default tseslint.config(
  // tools/openapi/hey-api/flow.ts imports a client generated at test time; tsc checks it there, strict.
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.nx/**',
      'data/**',
      'tmp/**',
      '**/*.js',
      '**/*.mjs',
      '!tools/**/*.js',
      '!tools/**/*.mjs',
      'tools/openapi/hey-api/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Nest modules are classes by design.
      '@typescript-eslint/no-extraneous-class': 'off',
      '@nx/enforce-module-boundaries': ['error', MODULE_BOUNDARIES],
    },
  },
  {
    // The browser tests drive the web interface against the API started in-process by the API's
    // own test support (test app, database, agent runs): the one place a project reaches into
    // an app's test/ and src/ folders, and only there.
    files: ['apps/web-e2e/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          ...MODULE_BOUNDARIES,
          allow: ['../../api/test/support/*', '../../../api/test/support/*', '../../api/src/**', '../../../api/src/**'],
        },
      ],
    },
  },
  {
    // Only repositories, entities and database/ talk to TypeORM; services get typed results.
    files: ['apps/api/src/**/*.ts'],
    ignores: ['apps/api/src/**/*.repository.ts', 'apps/api/src/**/*.entity.ts', 'apps/api/src/database/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'typeorm', message: 'Only repositories, entities and database/ import TypeORM.' },
            { name: '@nestjs/typeorm', message: 'Only repositories, entities and database/ import TypeORM.' },
          ],
        },
      ],
    },
  },
  {
    // Node's builtins are not external imports, which bannedExternalImports alone would miss.
    files: ['libs/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: DOMAIN_BANNED.map((name) => ({
            name,
            message: 'libs/domain is pure: no framework, database, network, files or processes.',
          })),
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'libs/domain is pure: no network. Fetch in the app and pass the bytes in.' },
      ],
    },
  },
  {
    // Test support (`@certkeeper/domain/testing`, `@certkeeper/net/testing`: minted certificates,
    // loopback and openssl servers; each outside its library's src/, so no build of an image
    // compiles it) is for specs, apps/*/test and the benchmarks, never for code
    // that ships. The typescript-eslint rule, so the no-restricted-imports lists above still apply.
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@certkeeper/*/testing', '@certkeeper/*/testing/*', '**/testing', '**/testing/*', '**/test/**'],
              message: 'Test support is for specs, apps/*/test and benchmarks, not for code that ships.',
            },
          ],
        },
      ],
    },
  },
  {
    // What stays JavaScript in tools/: the launcher and the install check that run before anything
    // is compiled or installed (build.js, ensure-installed.js), the Vite call that must be an ES
    // module (build-web.mjs) and the reporter Jest loads as it is. Linted without type information.
    files: ['tools/**/*.js', 'tools/**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', performance: 'readonly', URL: 'readonly' },
    },
  },
  {
    files: ['tools/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read response bodies as `any` and pass methods to expect().
    files: ['**/*.spec.ts', 'apps/*/test/**/*.ts'],
    rules: {
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
  prettier,
);
