# `adk api_server` in a container, built from a clean checkout of this repository:
#
#   docker build -t adk-api-server .
#   docker run -p 8000:8000 -e DATABASE_URL=postgres://user:pass@db:5432/adk adk-api-server
#
# The build runs the same steps as scripts/bootstrap.mjs (what `npm start` / `npm test` do): pnpm at
# the version pinned by package.json's `packageManager`, `pnpm install --frozen-lockfile`, then a
# turbo build. Serve your own agents by copying or mounting a folder and passing it as the argument
# (the default is the example apps). See docs/deployment.md.

ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /adk
COPY . .
# pnpm at the pinned version, installed with npm as the bootstrap script does.
RUN PNPM_VERSION="$(node -p "require('./package.json').packageManager.replace(/^pnpm@/, '').split('+')[0]")" \
 && npm install --global --no-audit --no-fund --loglevel=error "pnpm@${PNPM_VERSION}"
RUN pnpm install --frozen-lockfile --prefer-offline --reporter=append-only
# The CLI and everything it builds on (its dev dependencies are the optional peers it loads: server,
# session-sql, a2a, plugins, the model providers), and the example apps.
RUN pnpm exec turbo run build --filter=@adk/cli... --filter=@adk/examples... --output-logs=errors-only

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production
WORKDIR /adk
COPY --from=build --chown=node:node /adk /adk
# Agent folders mounted anywhere (e.g. /agents) import @adk/* and zod: Node looks for them up to
# /node_modules, which points at the example apps' dependencies (the workspace packages the CLI
# itself loads, so there is one @adk/core in the process).
RUN ln -s /adk/apps/examples/node_modules /node_modules
USER node
EXPOSE 8000
# Liveness from inside the container (loopback Host, so no --allow-hosts needed for it).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM (docker stop, a rolling deploy) drains: /ready turns 503, runs in progress get up to 10 s,
# then the stores close. Give the container a longer stop timeout than that (docker stop -t 30).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "packages/cli/bin/adk.js", "api_server", "--host", "0.0.0.0", "--port", "8000"]
CMD ["apps/examples"]
