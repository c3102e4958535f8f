# Production image: `docker build -t restaurant-ops .`, or `docker compose up` with compose.yaml (PostgreSQL beside it).
# docs/deployment.md describes the settings, the volumes and backups.

# ---- build: every dependency, then the service (tsc -> dist/, migrations copied into dist/db/migrations)
# and the web pages (Vite -> web/dist).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
RUN npm run build

# ---- runtime: production dependencies, the compiled service and the built pages; no TypeScript sources.
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
# DATA_DIR: the embedded PGlite database (when DATABASE_URL is unset) and generated secrets. Owned by the
# image's unprivileged `node` user (uid 1000), which runs the service.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
