#!/bin/sh
# The databases and roles of the stack, least privilege (docs/deployment.md, "PostgreSQL roles"):
#   registry_owner   owns dmrv_registry and everything in it: the registry's migrations, `cli.js import`, the CLI;
#   registry_reader  SELECT on dmrv_registry, nothing else: the registry API at run time;
#   ussd_gateway     owns dmrv_ussd and everything in it: the USSD gateway and its migrations.
# None is a superuser or may create databases or roles; PUBLIC may not connect to either database, so each role
# reaches only its own (a compromised USSD process cannot read the registry, nor `COPY … TO PROGRAM`).
#
# Runs on the first start of an empty PostgreSQL volume (docker-entrypoint-initdb.d, as POSTGRES_USER), and runs again
# unchanged against an existing server: every step is idempotent, objects an earlier version created as the cluster's
# superuser are handed to their database's owner, and the roles' passwords are set to the files' content. On a managed
# PostgreSQL run it as its admin role with the PG* variables (docs/deployment.md): it needs CREATEDB and CREATEROLE,
# not superuser. PostgreSQL 15 or later (the public schema belongs to its database's owner).
set -eu

# NAME or the file NAME_FILE names (compose secrets, Kubernetes Secret files), the same rule as the services' and the
# image's own *_FILE variables. Called with the two values, so the variables it reads are named in this file.
secret() {
  if [ -n "$3" ]; then
    if [ -n "$2" ]; then
      echo "set either $1 or $1_FILE, not both" >&2
      exit 1
    fi
    cat "$3"
  elif [ -n "$2" ]; then
    printf '%s' "$2"
  else
    echo "$1 or $1_FILE is required" >&2
    exit 1
  fi
}
registry_owner_password=$(secret REGISTRY_OWNER_PASSWORD "${REGISTRY_OWNER_PASSWORD:-}" "${REGISTRY_OWNER_PASSWORD_FILE:-}")
registry_reader_password=$(secret REGISTRY_READER_PASSWORD "${REGISTRY_READER_PASSWORD:-}" "${REGISTRY_READER_PASSWORD_FILE:-}")
ussd_database_password=$(secret USSD_DATABASE_PASSWORD "${USSD_DATABASE_PASSWORD:-}" "${USSD_DATABASE_PASSWORD_FILE:-}")
admin=${POSTGRES_USER:-${PGUSER:-postgres}}

# psql quotes the values itself (:'…'), so a password is never spliced into SQL text; \gexec runs the statements a
# query writes, which is how a step is skipped when its object exists.
psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet -v registry_owner_password="$registry_owner_password" \
  -v registry_reader_password="$registry_reader_password" -v ussd_database_password="$ussd_database_password" \
  --username "$admin" --dbname postgres <<'SQL'
SELECT format('CREATE ROLE %I', role) FROM unnest(ARRAY['registry_owner', 'registry_reader', 'ussd_gateway']) AS role
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role) \gexec
ALTER ROLE registry_owner WITH LOGIN PASSWORD :'registry_owner_password';
ALTER ROLE registry_reader WITH LOGIN PASSWORD :'registry_reader_password';
ALTER ROLE ussd_gateway WITH LOGIN PASSWORD :'ussd_database_password';
-- A managed server's admin is no superuser: it may give a database or an object to a role only as a member of it.
-- Taken back at the end.
GRANT registry_owner, ussd_gateway TO CURRENT_USER;
SELECT 'CREATE DATABASE dmrv_registry OWNER registry_owner'
  WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'dmrv_registry') \gexec
SELECT 'CREATE DATABASE dmrv_ussd OWNER ussd_gateway'
  WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'dmrv_ussd') \gexec
ALTER DATABASE dmrv_registry OWNER TO registry_owner;
ALTER DATABASE dmrv_ussd OWNER TO ussd_gateway;
-- Every role may connect to every database unless told otherwise (CONNECT and TEMPORARY belong to PUBLIC).
REVOKE ALL ON DATABASE dmrv_registry, dmrv_ussd FROM PUBLIC;
GRANT CONNECT ON DATABASE dmrv_registry TO registry_reader;
SQL

# Within each database: what an earlier version created as the superuser goes to the owner (tables carry their
# sequences along), then the owner's grants.
adopt() {
  psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet -v owner="$2" --username "$admin" --dbname "$1" <<'SQL'
SELECT format('ALTER TABLE %s OWNER TO %I', c.oid::regclass, :'owner')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND c.relowner <> :'owner'::regrole \gexec
SELECT format('ALTER SEQUENCE %s OWNER TO %I', c.oid::regclass, :'owner')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind = 'S' AND c.relowner <> :'owner'::regrole
    AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')) \gexec
SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, :'owner')
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = 'public' AND p.proowner <> :'owner'::regrole \gexec
SELECT format('ALTER TYPE %s OWNER TO %I', t.oid::regtype, :'owner')
  FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
  WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd', 'r', 'm') AND t.typowner <> :'owner'::regrole \gexec
SET ROLE :"owner";
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SQL
}
adopt dmrv_registry registry_owner
adopt dmrv_ussd ussd_gateway

psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet --username "$admin" --dbname dmrv_registry <<'SQL'
SET ROLE registry_owner;
GRANT USAGE ON SCHEMA public TO registry_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO registry_reader;
-- Tables later migrations create are readable without another grant.
ALTER DEFAULT PRIVILEGES FOR ROLE registry_owner IN SCHEMA public GRANT SELECT ON TABLES TO registry_reader;
SQL

psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet --username "$admin" --dbname postgres <<'SQL'
REVOKE registry_owner, ussd_gateway FROM CURRENT_USER;
SQL
