// Bundles the web interface (apps/web) with Vite into dist/apps/web. Called by tools/build.js,
// which decides whether the sources changed; ESM because Vite is. Quiet unless something is wrong.
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('../apps/web', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/apps/web', import.meta.url));

await build({
  root,
  configFile: false,
  logLevel: 'warn',
  plugins: [react()],
  // The runtime imports from outside apps/web: the role table and the lifetime-aware threshold rule shared with the API.
  resolve: {
    alias: {
      '@certkeeper/domain/roles': fileURLToPath(new URL('../libs/domain/src/roles.ts', import.meta.url)),
      '@certkeeper/domain/lifetime-thresholds': fileURLToPath(new URL('../libs/domain/src/lifetime-thresholds.ts', import.meta.url)),
    },
  },
  build: {
    outDir,
    emptyOutDir: true,
    // The API serves index.html itself; no inline script or style may be needed (the CSP forbids them).
    assetsInlineLimit: 0,
    sourcemap: true,
  },
});
