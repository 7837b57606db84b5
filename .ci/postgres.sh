#!/usr/bin/env bash
# Debian's PostgreSQL on loopback for the suite's second pass (issue 19): installed when missing, its
# cluster started as the postgres user (the server refuses to run as root), a fresh role and database
# for the tests (allowed to create databases: a test that takes its store offline does so in one of its
# own). Prints the DATABASE_URL on stdout; everything else goes to stderr.
set -euo pipefail
if ! compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi
VERSION="$(ls /usr/lib/postgresql | sort -V | tail -1)"
as_postgres() { (cd / && su postgres -s /bin/sh -c "$*"); }
if ! pg_lsclusters -h | awk -v v="$VERSION" '$1 == v && $2 == "main" { found = 1 } END { exit !found }'; then
  pg_createcluster "$VERSION" main >&2
fi
# The socket directory, owned by the cluster's user (a fresh container may not have it yet).
install -d -o postgres -g postgres -m 2775 /var/run/postgresql
PORT="$(pg_lsclusters -h | awk -v v="$VERSION" '$1 == v && $2 == "main" { print $3 }')"
if ! pg_lsclusters -h | awk -v v="$VERSION" '$1 == v && $2 == "main" && $4 == "online" { found = 1 } END { exit !found }'; then
  # Debian's default listen_addresses is localhost: loopback only.
  as_postgres "pg_ctlcluster $VERSION main start" >&2
fi
as_postgres "psql -p $PORT -qc \"DROP DATABASE IF EXISTS nodetool_ci\"" >&2
as_postgres "psql -p $PORT -qc \"DROP ROLE IF EXISTS nodetool_ci\"" >&2
as_postgres "psql -p $PORT -qc \"CREATE ROLE nodetool_ci LOGIN CREATEDB PASSWORD 'nodetool_ci'\"" >&2
# UTF-8 whatever the cluster was made with, so lower() folds every script as it does for users.
as_postgres "createdb -p $PORT -O nodetool_ci -E UTF8 --locale=C.UTF-8 -T template0 nodetool_ci" >&2
echo "postgres://nodetool_ci:nodetool_ci@127.0.0.1:$PORT/nodetool_ci"
