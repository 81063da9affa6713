# The mock as a container image: `npm run image` builds it (podman or docker), or
#   docker build -t user-group-mock .
# Then: docker run -p 127.0.0.1:4010:4010 -v "$PWD/data:/data" user-group-mock   (docs/container.md)
# BASE is the official Node 24 image; npm run image points it at a locally made equivalent where docker.io is out of
# reach. The base must have node, npm and a user `node` (uid 1000), as the official one does.
ARG BASE=docker.io/library/node:24-bookworm-slim

FROM ${BASE} AS build
# npm run image names this stage user-group-mock-build:<version>, and removes the unnamed images of both stages
# that an earlier build left when this one took their names (the label says which are the mock's).
LABEL user-group-mock.stage="build"
WORKDIR /src
COPY package.json package-lock.json ./
# No install scripts: the build needs none (esbuild's binary comes as a package), and prepare would build too early.
# A network that reaches the registry through its own certificate authority gives it as the secret npm_ca
# (npm run image passes the file NODE_EXTRA_CA_CERTS names); it stays out of every layer.
RUN --mount=type=secret,id=npm_ca --mount=type=cache,target=/root/.npm \
    if [ -f /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${BASE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="user-group-mock" \
      org.opencontainers.image.description="A local, stateful mock and contract-testing kit for the User Group Service API (/api/user)." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="MIT" \
      user-group-mock.stage="runtime"
ENV NODE_ENV=production \
    USER_GROUP_MOCK_HOST=0.0.0.0 \
    USER_GROUP_MOCK_PORT=4010
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/openapi ./openapi
COPY --from=build /src/contracts ./contracts
COPY --from=build /src/fixtures ./fixtures
COPY deploy/image/entrypoint.mjs ./entrypoint.mjs
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 4010
# The mock stops on SIGTERM: it finishes in-flight requests, writes the database file, and exits 0.
STOPSIGNAL SIGTERM
# The keyless probe: 200 once the mock listens with its store open (node itself: the slim base has no curl).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.USER_GROUP_MOCK_PORT}/__admin/health/live`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/entrypoint.mjs"]
CMD ["serve", "--db", "/data/db.json"]
