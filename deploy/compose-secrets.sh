#!/bin/sh
# Writes the files docker-compose.yml hands to the containers as secrets (mounted at /run/secrets/<name>, read
# through the services' *_FILE variables), with random passwords and key. A file that exists is kept: PostgreSQL
# keeps the passwords of its first start, so changing them means `docker compose down -v` too.
#   usage: deploy/compose-secrets.sh [directory]     (default: secrets/ next to docker-compose.yml)
set -eu
dir=${1:-"$(dirname "$0")/../secrets"}
umask 077
mkdir -p "$dir"
chmod 700 "$dir"

random_hex() {
  od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'
}

# Compose mounts these files as they are, and the services run as uid 1000 (PostgreSQL as its own user), so the
# files are world-readable; the directory is not, which keeps other users of this machine out.
write() {
  if [ -e "$dir/$1" ]; then
    echo "kept    $dir/$1"
  else
    printf '%s\n' "$2" >"$dir/$1"
    chmod 644 "$dir/$1"
    echo "created $dir/$1"
  fi
}

# What the USSD gateway sends Redis (ioredis's connection set-up, its reads, its Lua scripts and the commands they
# call; a cluster's slot map), and nothing else. test/redis-acl.int-spec.ts runs the gateway under exactly this.
USSD_REDIS_COMMANDS="+hello +auth +ping +info +select +quit +eval +evalsha +get +set +del +expire +pexpire +ttl +pttl \
+incr +hget +hmget +hset +hsetnx +hdel +hexists +zadd +zrange +zrem +zremrangebyscore +cluster|slots +cluster|info"

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    printf '%s' "$1" | sha256sum | cut -c1-64
  else
    printf '%s' "$1" | shasum -a 256 | cut -c1-64
  fi
}

# A password that goes into a URL must not need percent-encoding.
url_safe() {
  value=$(cat "$dir/$1")
  case "$value" in
    *[!A-Za-z0-9._~-]*)
      echo "$dir/$1 holds characters that need percent-encoding in a URL; write the *_database_url files yourself" >&2
      exit 1
      ;;
  esac
  printf '%s' "$value"
}

# The registry's answer-signing key (Ed25519, PKCS#8 PEM). Replacing it is a rotation: docs/security.md.
signing_key() {
  if command -v openssl >/dev/null 2>&1; then
    openssl genpkey -algorithm ed25519
  else
    node -e "process.stdout.write(require('crypto').generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }))"
  fi
}

write postgres_password "$(random_hex 24)"
write registry_owner_password "$(random_hex 24)"
write registry_reader_password "$(random_hex 24)"
write ussd_database_password "$(random_hex 24)"
write pin_encryption_key "$(random_hex 32)"
write redis_password "$(random_hex 24)"
# The registry's answer-signing key (Ed25519, PEM): rotation in docs/security.md.
write registry_signing_key "$(signing_key)"
# The secret of the aggregator's session-end callback URL (https://<host>/api/ussd/events?token=<it>).
write ussd_events_token "$(random_hex 24)"
# Each service its own role (deploy/postgres/10-databases.sh creates them): the registry's migrations, CLI and imports
# as the owner of its database, its server as the SELECT-only reader, the USSD gateway as the owner of its own. The
# superuser's password stays with PostgreSQL.
registry_owner=$(url_safe registry_owner_password)
reader=$(url_safe registry_reader_password)
ussd=$(url_safe ussd_database_password)
write registry_owner_database_url "postgres://registry_owner:$registry_owner@postgres:5432/dmrv_registry"
write registry_reader_database_url "postgres://registry_reader:$reader@postgres:5432/dmrv_registry"
write ussd_database_url "postgres://ussd_gateway:$ussd@postgres:5432/dmrv_ussd"
write ussd_redis_url "redis://ussd-gateway:$(random_hex 24)@redis:6379/0"
# The ACL file is written from the gateway's URL, so the two always name the same password.
ussd_redis=
if [ ! -e "$dir/redis_users_acl" ]; then
  ussd_redis=$(sed -n 's|^redis://ussd-gateway:\([A-Za-z0-9._~-]*\)@.*$|\1|p' "$dir/ussd_redis_url")
  if [ -z "$ussd_redis" ]; then
    echo "$dir/ussd_redis_url is not redis://ussd-gateway:<password>@…: delete it too, and run again" >&2
    exit 1
  fi
fi
# Redis's ACL file names each password by its SHA-256, so the server never holds one in clear. `default` (the health
# check's redis-cli) may PING and read INFO, nothing else; `ussd-gateway` may touch its REDIS_KEY_PREFIX (ussd:) only,
# with the commands it sends and its Lua scripts run (docs/deployment.md, "Redis users"), no FLUSHALL, CONFIG, KEYS.
write redis_users_acl "user default on #$(sha256 "$(cat "$dir/redis_password")") resetkeys resetchannels -@all +ping +info
user ussd-gateway on #$(sha256 "$ussd_redis") resetkeys ~ussd:* resetchannels -@all $USSD_REDIS_COMMANDS"
# Optional: empty leaves the USSD operator endpoints off (404) and the protocol gateway without API keys.
write ussd_operator_token ""
write protocol_api_keys ""
