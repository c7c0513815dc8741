#!/usr/bin/env bash
# Varnish in front of an app server, both in this terminal: `make serve VARNISH=1`.
#
#   deploy/varnish/serve.sh LISTEN BACKEND COMMAND...
#
# Starts varnishd as a plain process on LISTEN (host:port) with deploy/varnish/skillo.vcl,
# its backend BACKEND (host:port) and purges accepted from this machine only, then runs
# COMMAND (the app server, listening on BACKEND). Varnish's working folder is .varnish/
# (VARNISH_WORKDIR), its cache VARNISH_STORAGE (256m) of memory. Meant for one machine;
# on a server run Debian's varnish service with skillo.vcl and its own backend.vcl
# (docs/caching.md, "Varnish in front").
#
# VARNISH_BACKENDS (host:port,host:port..., BACKEND by default) lists every app server
# Varnish sends readers to, round robin: the others of several machines beside the one
# COMMAND starts. With more than one, each is probed (probe.vcl) and a sick one skipped.
#
# VARNISH_TLS_BIND (host:port, empty by default) adds the listen address for a TLS
# terminator in front (hitch, nginx's stream module): it speaks the PROXY protocol, and
# what comes in there is https (skillo.vcl, local.socket "https"). Keep it on loopback.
#
# The app server is watched, not trusted to stay up: when it exits or crashes, Varnish
# keeps serving what it has (grace) and COMMAND is started again, after 1 s, or after a
# delay that doubles (to 60 s at most) while it keeps exiting within 30 s of its start.
# Each exit and restart is said on stderr. Ctrl-C, SIGINT or SIGTERM stops both; so does
# Varnish exiting.
set -uo pipefail
listen=$1 backend=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=${VARNISH_WORKDIR:-$PWD/.varnish}
varnishd=$(command -v varnishd || echo /usr/sbin/varnishd)
if [ ! -x "$varnishd" ]; then
  echo "varnishd not found: apt-get install -y varnish varnish-modules (or make varnish)" >&2
  exit 1
fi
mkdir -p "$work" || exit 1
# One backend per app server of VARNISH_BACKENDS, each probed and in the director.
IFS=, read -ra servers <<< "${VARNISH_BACKENDS:-$backend}"
probe=
[ "${#servers[@]}" -gt 1 ] && probe='    .probe = skillo_alive;\n'
{
  echo "# Written by deploy/varnish/serve.sh for this run."
  [ -n "$probe" ] && echo 'include "probe.vcl";'
  n=0
  for server in "${servers[@]}"; do
    n=$((n + 1))
    printf 'backend app_%s {\n    .host = "%s";\n    .port = "%s";\n' "$n" "${server%:*}" "${server##*:}"
    printf "    .connect_timeout = 2s;\n    .first_byte_timeout = 60s;\n$probe}\n"
  done
  echo "sub vcl_init {"
  for i in $(seq "$n"); do echo "    app.add_backend(app_$i);"; done
  echo "}"
  printf 'acl purgers {\n    "127.0.0.1";\n    "::1";\n}\n'
} > "$work/backend.vcl" || exit 1
listeners=(-a "http=$listen")
if [ -n "${VARNISH_TLS_BIND:-}" ]; then
  listeners+=(-a "https=$VARNISH_TLS_BIND,PROXY")
fi

say() { echo "serve.sh: $*" >&2; }

varnish= app= pause= stopping=
stop() {
  # $1: the signal that asked (INT asks gunicorn for its quick shutdown, TERM for its
  # graceful one).
  stopping=1
  [ -n "$pause" ] && kill "$pause" 2>/dev/null
  [ -n "$app" ] && kill -"$1" "$app" 2>/dev/null
  [ -n "$varnish" ] && kill -TERM "$varnish" 2>/dev/null
}
trap 'stop INT' INT
trap 'stop TERM' TERM
# Until the process (and its session's process group) is gone; after $2 seconds it is
# killed: a stop must end even when a process hangs on its way out (gunicorn's own
# graceful timeout is 30 s). Polled, since wait cannot give up after a time.
reap() {
  local deadline=$((SECONDS + $2))
  while kill -0 "$1" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      say "pid $1 still running $2 s after it was asked to stop: killing it."
      kill -KILL -- "-$1" 2>/dev/null || kill -KILL "$1" 2>/dev/null
    fi
    sleep 0.1
  done
  wait "$1" 2>/dev/null
  return 0
}
finish() {
  stopping=1
  [ -n "$pause" ] && kill "$pause" 2>/dev/null
  # What is left of the app server's process group (workers whose master was killed).
  [ -n "$app" ] && kill -TERM -- "-$app" 2>/dev/null
  [ -n "$varnish" ] && kill -TERM "$varnish" 2>/dev/null
  [ -n "$app" ] && reap "$app" 35
  [ -n "$varnish" ] && reap "$varnish" 10
  return 0
}
trap finish EXIT

# -j none: no separate user for the cache process (the folder is this user's own). A
# session of its own, as the app server's below: Ctrl-C reaches the launcher alone, which
# then stops both in order.
setsid "$varnishd" -F -n "$work/varnishd" "${listeners[@]}" -f "$here/skillo.vcl" \
  -p vcl_path="$work:$here" -s "malloc,${VARNISH_STORAGE:-256m}" -j none &
varnish=$!
# Wait (10 s at most) until Varnish takes connections; give up if it exits first.
host=${listen%:*} host=${host#[} host=${host%]}
for _ in $(seq 100); do
  kill -0 "$varnish" 2>/dev/null || { say "varnishd did not start (see above)."; exit 1; }
  (exec 3<>"/dev/tcp/${host:-127.0.0.1}/${listen##*:}") 2>/dev/null && break
  sleep 0.1
done
say "Varnish on http://$listen/${VARNISH_TLS_BIND:+ (and PROXY from a TLS terminator on $VARNISH_TLS_BIND)} in front of the app server on $backend"

delay=1
while [ -z "$stopping" ]; do
  started=$SECONDS
  # A session (and process group) of its own: when its master dies, the launcher stops
  # the workers it leaves behind, which would otherwise keep BACKEND's port.
  setsid "$@" &
  app=$!
  # Until the app server or Varnish exits (or a signal stops both).
  while [ -z "$stopping" ]; do
    wait -n -p ended "$app" "$varnish"
    status=$?
    [ -n "${ended:-}" ] && break
  done
  [ -n "$stopping" ] && break
  if [ "$ended" = "$varnish" ]; then
    say "varnishd exited with status $status: stopping the app server."
    varnish=
    kill -TERM "$app" 2>/dev/null
    exit 1
  fi
  kill -TERM -- "-$app" 2>/dev/null  # Its workers, if its master was killed.
  ran=$((SECONDS - started))
  if [ "$ran" -ge 30 ]; then delay=1; fi
  say "the app server (pid $app) exited with status $status after ${ran} s; Varnish keeps serving what it has. Starting it again in ${delay} s."
  app=
  sleep "$delay" &
  pause=$!
  wait -n -p ended "$pause" "$varnish"
  status=$?
  if [ "${ended:-}" = "$varnish" ]; then
    say "varnishd exited with status $status: stopping."
    varnish=
    exit 1
  fi
  kill "$pause" 2>/dev/null
  pause=
  # The next delay, should this start fail too.
  if [ "$ran" -lt 30 ]; then delay=$((delay * 2 > 60 ? 60 : delay * 2)); fi
done
say "stopping Varnish and the app server."
exit 0
