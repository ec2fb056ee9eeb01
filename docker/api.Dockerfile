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
RUN npm install --no-audit --no-fund
COPY . .
RUN node tools/build.js api

# Production dependencies, in a stage of their own: this layer changes only with the lockfile.
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm install --omit=dev --no-audit --no-fund

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
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/api/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--enable-source-maps", "dist/apps/api/src/main.js"]
