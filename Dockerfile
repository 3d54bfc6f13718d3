# syntax=docker/dockerfile:1
# AgentLink: one image for every role (the command picks it: serve, serve --role api, worker). Built in three stages;
# test/ops/production-build.slow.test.ts runs each of these commands (test/ops/deploy-commands.ts lists them).

ARG NODE_IMAGE=node:20-bookworm-slim

# 1. Compile the server to dist/: every dependency, none of their install scripts (TypeScript needs none).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY contract ./contract
COPY openapi ./openapi
COPY server ./server
RUN npm run build

# 2. Production dependencies only. sqlite3 compiles its native module when no prebuilt one can be downloaded.
FROM ${NODE_IMAGE} AS deps
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts=false

# 3. The runtime: Node, Chromium from Debian's packages, the compiled server. No compiler, no TypeScript, not root.
FROM ${NODE_IMAGE}
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium fonts-liberation ca-certificates tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=4000 \
  AGENTLINK_DATA_DIR=/data \
  AGENTLINK_CHROMIUM_PATH=/usr/bin/chromium
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 4000
# Readiness, not liveness: the database, the queue and (where a worker runs) the browser.
HEALTHCHECK --interval=15s --timeout=7s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini as PID 1: it forwards SIGTERM (graceful shutdown) and reaps Chromium's child processes.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/server/main.js", "serve"]
