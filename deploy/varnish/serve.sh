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
# VARNISH_TLS_PROXIES (addresses or networks, comma-separated, none by default) names the
# balancers in front that terminate TLS themselves and say so in X-Forwarded-Proto: from
# them, and only them, that header is believed (skillo.vcl, the ACL tls_proxies).
#
# LISTEN "-" runs no Varnish: the app server alone, watched as below (`make serve`).
#
# Both are watched, not trusted to stay up: when the app server exits or crashes, Varnish
# keeps serving what it has (grace); when varnishd does, the app server keeps running.
# Either is started again, after 1 s, or after a delay that doubles (to 60 s at most)
# while it keeps exiting within 30 s of its start. Each exit and restart is said on
# stderr. Ctrl-C, SIGINT or SIGTERM stops both.
set -uo pipefail
listen=$1 backend=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=${VARNISH_WORKDIR:-$PWD/.varnish}
varnishd=$(command -v varnishd || echo /usr/sbin/varnishd)
with_varnish=1
[ "$listen" = - ] && with_varnish=
if [ -n "$with_varnish" ] && [ ! -x "$varnishd" ]; then
  echo "varnishd not found: apt-get install -y varnish varnish-modules (or make varnish)" >&2
  exit 1
fi
if [ -n "$with_varnish" ]; then
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
    echo "acl tls_proxies {"
    IFS=, read -ra proxies <<< "${VARNISH_TLS_PROXIES:-}"
    for proxy in "${proxies[@]}"; do
      proxy=${proxy// /}
      [ -z "$proxy" ] && continue
      if [[ $proxy == */* ]]; then printf '    "%s"/%s;\n' "${proxy%/*}" "${proxy#*/}"
      else printf '    "%s";\n' "$proxy"; fi
    done
    echo "}"
  } > "$work/backend.vcl" || exit 1
  listeners=(-a "http=$listen")
  if [ -n "${VARNISH_TLS_BIND:-}" ]; then
    listeners+=(-a "https=$VARNISH_TLS_BIND,PROXY")
  fi
fi

say() { echo "serve.sh: $*" >&2; }

# The two processes, each watched: pid, start time, next restart delay, when it is due.
declare -A pid=([varnish]= [app]=) started delay=([varnish]=1 [app]=1) due
app_command=("$@")
stopping=
stop() {
  # $1: the signal that asked (INT asks gunicorn for its quick shutdown, TERM for its
  # graceful one).
  stopping=1
  [ -n "${pid[app]}" ] && kill -"$1" "${pid[app]}" 2>/dev/null
  [ -n "${pid[varnish]}" ] && kill -TERM "${pid[varnish]}" 2>/dev/null
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
  # What is left of each process group (workers whose master was killed).
  [ -n "${pid[app]}" ] && kill -TERM -- "-${pid[app]}" 2>/dev/null
  [ -n "${pid[varnish]}" ] && kill -TERM -- "-${pid[varnish]}" 2>/dev/null
  [ -n "${pid[app]}" ] && reap "${pid[app]}" 35
  [ -n "${pid[varnish]}" ] && reap "${pid[varnish]}" 10
  return 0
}
trap finish EXIT

# Each in a session (and process group) of its own: Ctrl-C reaches the launcher alone,
# which then stops both in order; and when one's main process dies, the launcher stops
# what it leaves behind (gunicorn's workers, Varnish's cache process), which would
# otherwise keep its port.
start() {
  if [ "$1" = varnish ]; then
    # -j none: no separate user for the cache process (the folder is this user's own).
    setsid "$varnishd" -F -n "$work/varnishd" "${listeners[@]}" -f "$here/skillo.vcl" \
      -p vcl_path="$work:$here" -s "malloc,${VARNISH_STORAGE:-256m}" -j none &
  else
    setsid "${app_command[@]}" &
  fi
  pid[$1]=$! started[$1]=$SECONDS
}

# One that has exited is started again, after 1 s, or after a delay that doubles (to
# 60 s at most) while it keeps exiting within 30 s of its start; the other keeps running.
tend() {
  local name=$1 status ran
  if [ -z "${pid[$name]}" ]; then
    [ "$SECONDS" -ge "${due[$name]}" ] && start "$name"
    return 0
  fi
  kill -0 "${pid[$name]}" 2>/dev/null && return 0
  wait "${pid[$name]}"
  status=$?
  kill -TERM -- "-${pid[$name]}" 2>/dev/null
  ran=$((SECONDS - started[$name]))
  [ "$ran" -ge 30 ] && delay[$name]=1
  if [ "$name" = app ] && [ -z "$with_varnish" ]; then
    say "the app server (pid ${pid[app]}) exited with status $status after ${ran} s. Starting it again in ${delay[app]} s."
  elif [ "$name" = app ]; then
    say "the app server (pid ${pid[app]}) exited with status $status after ${ran} s; Varnish keeps serving what it has. Starting it again in ${delay[app]} s."
  else
    say "varnishd (pid ${pid[varnish]}) exited with status $status after ${ran} s; the app server keeps running. Starting it again in ${delay[varnish]} s."
  fi
  pid[$name]= due[$name]=$((SECONDS + delay[$name]))
  delay[$name]=$((delay[$name] * 2 > 60 ? 60 : delay[$name] * 2))
}

if [ -n "$with_varnish" ]; then
  start varnish
  # Wait (10 s at most) until Varnish takes connections; give up if it exits first.
  host=${listen%:*} host=${host#[} host=${host%]}
  for _ in $(seq 100); do
    kill -0 "${pid[varnish]}" 2>/dev/null || { say "varnishd did not start (see above)."; exit 1; }
    (exec 3<>"/dev/tcp/${host:-127.0.0.1}/${listen##*:}") 2>/dev/null && break
    sleep 0.1
  done
  say "Varnish on http://$listen/${VARNISH_TLS_BIND:+ (and PROXY from a TLS terminator on $VARNISH_TLS_BIND)} in front of the app server on $backend"
fi
start app
while [ -z "$stopping" ]; do
  [ -n "$with_varnish" ] && tend varnish
  tend app
  sleep 0.2
done
say "stopping ${with_varnish:+Varnish and }the app server."
exit 0
