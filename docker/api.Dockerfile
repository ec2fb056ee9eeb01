# Certkeeper API. Build from the repository root:
#   docker build -f docker/api.Dockerfile -t certkeeper-api .
#
# The image carries the compiled API, the compiled agent it runs as its embedded scanner
# (EMBEDDED_SCANNER) and the production dependencies. `npm run images:sizes` measures what each
# image adds to its base. npm install, not npm ci: the committed lockfile holds only the Linux
# builds of platform packages, which npm ci rejects as out of sync.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
COPY tools/ensure-installed.js tools/
# ensure-installed records the lockfile's digest, so tools/build.js after `COPY . .` (which gives
# the lockfile a new mtime, not new content) does not install again.
RUN node tools/ensure-installed.js
COPY . .
RUN node tools/build.js api

# Production dependencies, in a stage of their own: this layer changes only with the lockfile.
# Every production dependency, and no package that production ones only name as optional peers
# (typeorm: typescript and ts-node; @swc/core...), which the API never loads: without the
# devDependencies in the manifest those are flagged peer, and --omit=peer leaves them out
# (docs/decisions/0021).
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm pkg delete devDependencies && npm install --omit=dev --omit=peer --no-audit --no-fund

FROM node:22-bookworm-slim
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist/apps/api ./dist/apps/api
COPY --from=build /src/dist/apps/scanner ./dist/apps/scanner
COPY --from=build /src/dist/apps/web ./dist/apps/web
COPY --from=build /src/dist/libs ./dist/libs
COPY package.json ./
# /data holds the embedded database and generated secrets when DATABASE_URL is unset.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Kept only by `docker build` or `podman build --format docker` (the OCI format has no health
# check); docker/compose.yaml states its own.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/api/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--enable-source-maps", "dist/apps/api/src/main.js"]
