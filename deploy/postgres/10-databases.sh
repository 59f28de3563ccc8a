#!/bin/sh
# Runs once, on the first start of an empty PostgreSQL volume (docker-entrypoint-initdb.d).
# One database per service; the registry API connects as a read-only role (it needs SELECT only),
# while its migrations run as the owner.
set -eu
# The reader's password comes from REGISTRY_READER_PASSWORD or from the file REGISTRY_READER_PASSWORD_FILE names
# (compose secrets), the same rule as the services' and the image's own *_FILE variables.
if [ -n "${REGISTRY_READER_PASSWORD_FILE:-}" ]; then
  if [ -n "${REGISTRY_READER_PASSWORD:-}" ]; then
    echo "set either REGISTRY_READER_PASSWORD or REGISTRY_READER_PASSWORD_FILE, not both" >&2
    exit 1
  fi
  REGISTRY_READER_PASSWORD=$(cat "$REGISTRY_READER_PASSWORD_FILE")
fi
: "${REGISTRY_READER_PASSWORD:?REGISTRY_READER_PASSWORD or REGISTRY_READER_PASSWORD_FILE is required}"
# psql quotes the values itself (:'…', :"…"), so a password is never spliced into SQL text.
psql -v ON_ERROR_STOP=1 -v reader_password="$REGISTRY_READER_PASSWORD" --username "$POSTGRES_USER" --dbname postgres <<'SQL'
CREATE DATABASE dmrv_registry;
CREATE DATABASE dmrv_ussd;
CREATE ROLE registry_reader LOGIN PASSWORD :'reader_password';
GRANT CONNECT ON DATABASE dmrv_registry TO registry_reader;
SQL
psql -v ON_ERROR_STOP=1 -v owner="$POSTGRES_USER" --username "$POSTGRES_USER" --dbname dmrv_registry <<'SQL'
GRANT USAGE ON SCHEMA public TO registry_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public GRANT SELECT ON TABLES TO registry_reader;
SQL
