#!/bin/sh
# Runs once, on the first start of an empty PostgreSQL volume (docker-entrypoint-initdb.d).
# One database per service; the registry API connects as a read-only role (it needs SELECT only),
# while its migrations run as the owner.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres <<SQL
CREATE DATABASE dmrv_registry;
CREATE DATABASE dmrv_ussd;
CREATE ROLE registry_reader LOGIN PASSWORD '${REGISTRY_READER_PASSWORD}';
GRANT CONNECT ON DATABASE dmrv_registry TO registry_reader;
SQL
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname dmrv_registry <<SQL
GRANT USAGE ON SCHEMA public TO registry_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE "$POSTGRES_USER" IN SCHEMA public GRANT SELECT ON TABLES TO registry_reader;
SQL
