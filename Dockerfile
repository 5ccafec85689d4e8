# termd in a container: the daemon is the container's main process (PID 1: it reaps orphans and
# stops every session cleanly on SIGTERM), serving HTTP and WebSocket behind a token.
#   docker build -t termd .
#   docker run -e TERMD_TOKEN=… -p 7681:7681 termd
# The orchestrator example (one termd per sandbox) is contrib/kubernetes/sandbox.yaml.

# Build: the same `npm install && npm run build` as on a developer's machine; only Node is needed.
# (.git stays out of the context, so `termd --version` names no commit; a release archive, or
# install.sh, in the run stage instead gives the release's.)
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Run: debian-slim, the binary, and the programs sessions run (a sandbox image adds its own).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bash ca-certificates less procps vim-tiny \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 1000 --shell /bin/bash sandbox \
 && install -d -o sandbox -g sandbox -m 0700 /var/lib/termd
COPY --from=build /src/dist/termd /usr/local/bin/termd
RUN ln -s termd /usr/local/bin/interminai && ln -s termd /usr/local/bin/cp-console-server
USER sandbox
WORKDIR /home/sandbox
ENV SHELL=/bin/bash TERMD_STATE_DIR=/var/lib/termd
VOLUME /var/lib/termd
EXPOSE 7681
# TERMD_TOKEN comes from the orchestrator (a secret); without it the daemon makes one in the
# state dir (`docker exec CONTAINER termd token` prints it).
ENTRYPOINT ["termd", "daemon"]
CMD ["--http", "0.0.0.0:7681"]
# Needs no token; curl is not in the image, so termd's own client does the asking.
HEALTHCHECK --interval=30s --timeout=5s CMD ["termd", "daemon", "status"]
