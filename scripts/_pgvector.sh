#!/usr/bin/env bash
# Installs pgvector into the local PostgreSQL server (Debian's postgresql-<major>-pgvector), which
# the store's semantic search (store.index) needs on PostgreSQL. Sourced by scripts/test after
# _bootstrap.sh; quiet and skipped when the extension is already there, when PostgreSQL is not
# installed here (a remote $OLG_TEST_POSTGRES_URL), or without root and apt-get. Never fails the
# caller: where no package exists (Debian 12 has none), the PostgreSQL store tests check the
# clear refusal of an index instead, and the ranking tests run on SQLite.
PGVECTOR_MAJOR="$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)"
if [ -n "$PGVECTOR_MAJOR" ] &&
  [ ! -f "/usr/share/postgresql/$PGVECTOR_MAJOR/extension/vector.control" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    pgvector_package="postgresql-$PGVECTOR_MAJOR-pgvector"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pgvector_package" \
      >/dev/null 2>&1; then
      apt-get update -qq >/dev/null 2>&1 || true
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pgvector_package" \
        >/dev/null 2>&1 ||
        echo "pgvector: no $pgvector_package package here; PostgreSQL store tests check its refusal" >&2
    fi
  else
    echo "pgvector: not installed (apt-get install postgresql-$PGVECTOR_MAJOR-pgvector as root)" >&2
  fi
fi
unset PGVECTOR_MAJOR
