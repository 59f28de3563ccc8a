#!/bin/sh
# The official image's contract, as far as docker-compose.yml and the dev overlay rely on it: started as root it
# hands the data directory to postgres (uid 70) and drops to it; started as that user (Kubernetes runAsUser) it runs
# as is. An empty PGDATA is initialised with POSTGRES_USER as superuser and the password from POSTGRES_PASSWORD_FILE
# (scram-sha-256 over TCP, trust on the local socket), then /docker-entrypoint-initdb.d/*.sh run against a server
# listening on the socket only, as the official image does.
set -eu
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_USER:=postgres}"
  export POSTGRES_USER
  mkdir -p "$PGDATA"
  chmod 700 "$PGDATA"
  pwfile="$(mktemp)"
  cat "$POSTGRES_PASSWORD_FILE" >"$pwfile"
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  for script in /docker-entrypoint-initdb.d/*; do
    case "$script" in
      *.sh) echo "running $script"; if [ -x "$script" ]; then "$script"; else . "$script"; fi ;;
      *) ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "PostgreSQL init process complete; ready for start up."
fi
if [ "$1" = postgres ]; then
  shift
  exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec "$@"
