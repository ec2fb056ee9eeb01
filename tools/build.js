// `node tools/build.js [--force] <scanner|api|tools|all>`: the build (tools/build.ts) behind
// `npm start`, `npm test` and every script that needs dist/.
//
// This launcher stays plain CommonJS because it runs first, before anything is compiled and maybe
// before anything is installed: it installs when needed (ensure-installed.js), then transpiles
// build.ts in memory with SWC, which the build uses anyway. That costs about 50 ms where ts-node
// would load the TypeScript compiler (0.4 to 1.3 s here) on every `npm start`, whose check that
// dist/ is current must stay well under a second (docs/decisions/0002-swc-build.md).
'use strict';
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { ensureInstalled } = require('./ensure-installed');

function loadTypeScript(file) {
  const { transformSync } = require('@swc/core');
  const { code } = transformSync(fs.readFileSync(file, 'utf8'), {
    filename: file,
    swcrc: false,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  const loaded = new Module(file, module);
  loaded.filename = file;
  loaded.paths = Module._nodeModulePaths(path.dirname(file));
  loaded._compile(code, file);
  return loaded.exports;
}

const started = performance.now();
const installStatus = ensureInstalled();
if (installStatus !== 0) {
  process.exitCode = installStatus;
} else {
  const installCheckMs = Math.round(performance.now() - started);
  process.exitCode = loadTypeScript(path.join(__dirname, 'build.ts')).main(process.argv.slice(2), installCheckMs);
}
