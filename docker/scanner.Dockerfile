# Certkeeper scanner agent, one per network segment. Build from the repository root:
#   docker build -f docker/scanner.Dockerfile -t certkeeper-scanner .
# Run with SCANNER_API_URL and SCANNER_TOKEN (a stx_s_ token from POST /api/v1/scanners).
#
# The image carries the compiled agent (dist/apps/scanner and dist/libs) and only the npm packages
# its code requires at run time, at the lockfile's versions: tools/runtime-manifest.ts lists them
# from the compiled require graph. `npm run images:sizes` measures what each image adds to its base.
# npm install, not npm ci: the committed lockfile holds only the Linux builds of platform packages,
# which npm ci rejects as out of sync.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
COPY tools/ensure-installed.js tools/
# ensure-installed records the lockfile's digest, so tools/build.js after `COPY . .` does not install again.
RUN node tools/ensure-installed.js
COPY . .
RUN node tools/build.js scanner && node tools/build.js tools && mkdir -p runtime && node dist/tools/runtime-manifest.js dist/apps/scanner/src/main.js > runtime/package.json

# The agent's packages only: its manifest with the root lockfile, so they install at locked versions.
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY --from=build /src/runtime/package.json ./
COPY package-lock.json .npmrc ./
RUN npm install --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim
# The metrics listener serves the health check below; SCANNER_METRICS_HOST stays 127.0.0.1, inside
# the container (or the host's loopback under --network host, where each agent needs its own port).
ENV NODE_ENV=production SCANNER_METRICS_PORT=9464
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist/apps/scanner ./dist/apps/scanner
COPY --from=build /src/dist/libs ./dist/libs
USER node
# Healthy while the agent runs and answers on its metrics port (a listener bound to 0.0.0.0 or ::
# is asked on loopback). Kept only by `docker build` or `podman build --format docker`.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s CMD node -e "const h=process.env.SCANNER_METRICS_HOST||'127.0.0.1',a=['0.0.0.0','::'].includes(h)?'127.0.0.1':h.includes(':')?'['+h+']':h;fetch('http://'+a+':'+process.env.SCANNER_METRICS_PORT+'/metrics',{method:'HEAD'}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--enable-source-maps", "dist/apps/scanner/src/main.js"]
