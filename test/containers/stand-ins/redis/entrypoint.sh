#!/bin/sh
# The official image's contract: `redis-server …` started as root drops to the redis user (uid 999); any other user
# (Kubernetes runAsUser) runs it as is.
set -eu
if [ "$1" = redis-server ] && [ "$(id -u)" = 0 ]; then
  exec setpriv --reuid=redis --regid=redis --init-groups "$@"
fi
exec "$@"
