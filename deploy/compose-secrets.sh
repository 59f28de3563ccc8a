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
write registry_reader_password "$(random_hex 24)"
write pin_encryption_key "$(random_hex 32)"
write redis_password "$(random_hex 24)"
write registry_signing_key "$(signing_key)"
owner=$(url_safe postgres_password)
reader=$(url_safe registry_reader_password)
redis=$(url_safe redis_password)
write registry_owner_database_url "postgres://dmrv:$owner@postgres:5432/dmrv_registry"
write registry_reader_database_url "postgres://registry_reader:$reader@postgres:5432/dmrv_registry"
write ussd_database_url "postgres://dmrv:$owner@postgres:5432/dmrv_ussd"
write ussd_redis_url "redis://:$redis@redis:6379/0"
# Redis's ACL file names the default user's password by its SHA-256, so the server never holds it in clear.
write redis_users_acl "user default on #$(sha256 "$redis") ~* &* +@all"
# Optional: empty leaves the USSD operator endpoints off (404) and the protocol gateway without API keys.
write ussd_operator_token ""
write protocol_api_keys ""
