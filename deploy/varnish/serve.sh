#!/usr/bin/env bash
# Varnish in front of an app server, both in this terminal: `make serve VARNISH=1`.
#
#   deploy/varnish/serve.sh LISTEN BACKEND COMMAND...
#
# Starts varnishd as a plain process on LISTEN (host:port) with deploy/varnish/skillo.vcl,
# its backend BACKEND (host:port) and purges accepted from this machine only, then runs
# COMMAND (the app server, listening on BACKEND) in the foreground. Ctrl-C stops both.
# Varnish's working folder is .varnish/ (VARNISH_WORKDIR), its cache VARNISH_STORAGE
# (256m) of memory. Meant for one machine; on a server run Debian's varnish service with
# skillo.vcl and its own backend.vcl (docs/caching.md, "Varnish in front").
set -euo pipefail
listen=$1 backend=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=${VARNISH_WORKDIR:-$PWD/.varnish}
varnishd=$(command -v varnishd || echo /usr/sbin/varnishd)
if [ ! -x "$varnishd" ]; then
  echo "varnishd not found: apt-get install -y varnish varnish-modules (or make varnish)" >&2
  exit 1
fi
mkdir -p "$work"
cat > "$work/backend.vcl" <<VCL
# Written by deploy/varnish/serve.sh for this run.
backend skillo {
    .host = "${backend%:*}";
    .port = "${backend##*:}";
    .connect_timeout = 2s;
    .first_byte_timeout = 60s;
}
acl purgers {
    "127.0.0.1";
    "::1";
}
VCL
# -j none: no separate user for the cache process (the folder is this user's own).
"$varnishd" -F -n "$work/varnishd" -a "$listen" -f "$here/skillo.vcl" \
  -p vcl_path="$work:$here" -s "malloc,${VARNISH_STORAGE:-256m}" -j none &
varnish=$!
trap 'kill "$varnish" 2>/dev/null || true; wait "$varnish" 2>/dev/null || true' EXIT
sleep 1
if ! kill -0 "$varnish" 2>/dev/null; then
  echo "varnishd did not start (see above)." >&2
  exit 1
fi
echo "Varnish on http://$listen/ in front of the app server on $backend"
# Not exec: when the app server stops (Ctrl-C reaches both), the trap stops Varnish.
"$@"
