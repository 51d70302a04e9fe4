# syntax=docker/dockerfile:1
# Order Desk: one image for every deployment shape (docs/deploy.md).
# Build:  docker build -t order-desk .
# Run:    docker run --env-file .env -v order-desk-data:/data \
#           -v "$PWD/order-desk.config.yml:/config/order-desk.config.yml:ro" -p 3000:3000 order-desk
# Check:  docker run --rm --env-file .env -v order-desk-data:/data \
#           -v "$PWD/order-desk.config.yml:/config/order-desk.config.yml:ro" order-desk node bin/order-desk.js doctor
# (.env from .env.example; on a new volume the doctor's database line is a note: the first start creates it.)

# The base image pinned by digest, so a rebuild gets the same system and Node.js until the pin is moved on purpose
# (node:24-bookworm-slim, Node.js 24.18.0). Move it with: docker buildx imagetools inspect node:24-bookworm-slim
ARG NODE_IMAGE=node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d

# --- build: compile src/ to dist/ (plain JavaScript: less memory and a faster start than through tsx). ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund && npm run build

# --- dependencies: production only (no TypeScript, no tsx: the image runs dist/). ---
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# --- runtime ---
FROM ${NODE_IMAGE} AS runtime
# glibc gives freed memory back to the system (bin/malloc-trim.js; set here so `order-desk start` need not
# re-execute itself to set it).
ENV NODE_ENV=production \
    GLIBC_TUNABLES=glibc.malloc.trim_threshold=131072 \
    ORDER_DESK_ENV=production \
    ORDER_DESK_DATA_DIR=/data \
    ORDER_DESK_CONFIG=/config/order-desk.config.yml \
    HTTP_HOST=0.0.0.0 \
    HTTP_PORT=3000
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json manifest.yml manifest.http.yml .env.example README.md CHANGELOG.md ./
# What the app's messages point to (README.md's configuration table, docs/*.md, the example customer file).
COPY --chown=root:root docs ./docs
COPY --chown=root:root examples ./examples
COPY --chown=root:root bin ./bin
# The compiled app only: no src/, tools/ or bench/ (bin/order-desk.js runs dist/ when there are no sources).
COPY --from=build --chown=root:root /app/dist ./dist
# The code stays root-owned and read-only to the app; only the data directory belongs to the `node` user
# (uid 1000, shipped with the official image). A named volume mounted here inherits that ownership.
RUN mkdir -p /data /config && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# /metrics and readiness details are on the operations listener, 127.0.0.1:9464 by default: set OPS_HTTP_HOST=0.0.0.0
# to scrape from outside the container, and keep that port off public routes (docs/deploy.md).
# slim has no curl: ask /healthz with Node's own fetch.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.HTTP_PORT||3000}/healthz`,{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Order Desk drains its jobs on SIGTERM within SHUTDOWN_GRACE_MS (default 20 s); give `docker stop -t` a bit more.
STOPSIGNAL SIGTERM
CMD ["node", "bin/order-desk.js", "start"]
