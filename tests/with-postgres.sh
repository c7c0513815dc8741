#!/usr/bin/env bash
# Run a command against a throwaway PostgreSQL cluster on 127.0.0.1, then remove it.
# Usage: tests/with-postgres.sh COMMAND...   (DATABASE_URL is set for the command)
set -euo pipefail

pgbin=""
for dir in "$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent)")" /usr/lib/postgresql/*/bin; do
  if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then pgbin=$dir; break; fi
done
if [ -z "$pgbin" ]; then
  echo "PostgreSQL server not found (initdb, pg_ctl). On Debian: apt-get install -y postgresql" >&2
  exit 1
fi

root=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg=()
if [ "$(id -u)" = 0 ]; then
  # initdb refuses to run as root.
  chown postgres: "$root"
  as_pg=(runuser -u postgres --)
fi

stop() {
  "${as_pg[@]}" "$pgbin/pg_ctl" -D "$root/data" stop -m immediate >/dev/null 2>&1 || true
  rm -rf "$root"
}
trap stop EXIT

"${as_pg[@]}" "$pgbin/initdb" -D "$root/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
  --no-sync >"$root/initdb.log" 2>&1 || { cat "$root/initdb.log" >&2; exit 1; }
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$root/data" -l "$root/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $root -c fsync=off -c full_page_writes=off" \
  start >/dev/null || { cat "$root/server.log" >&2; exit 1; }

psql=$(command -v psql || echo "$pgbin/psql")
"$psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -qc 'CREATE DATABASE skillo'
# No host in the URL: libpq then connects through the Unix socket in $PGHOST, the same
# server as on 127.0.0.1:$port but a fifth less time per query.
export PGHOST="$root"
export DATABASE_URL="postgres://postgres@:$port/skillo"
echo "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (and its socket in $root)"
"$@"
