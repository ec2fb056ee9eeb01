# Certkeeper scanner agent, one per network segment. Build from the repository root:
#   docker build -f docker/scanner.Dockerfile -t certkeeper-scanner .
# Run with SCANNER_API_URL and SCANNER_TOKEN (a stx_s_ token from POST /api/v1/scanners).
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
USER node
CMD ["node", "--enable-source-maps", "dist/apps/scanner/src/main.js"]
