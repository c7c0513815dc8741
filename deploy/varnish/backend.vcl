# Where Varnish finds Skillo, and who may purge: included by skillo.vcl.
#
# This copy is the default (gunicorn on 127.0.0.1:8001, purges from this machine only).
# `make serve VARNISH=1` and the tests write their own backend.vcl in Varnish's working
# folder, which comes first on varnishd's vcl_path. On a server, edit this file (or put
# your own earlier on vcl_path): one backend per app server, added to the director `app`
# in vcl_init; with several, `include "probe.vcl";` first and give each
# `.probe = skillo_alive;`. Add each app server that sends purges to `purgers`.

backend app_1 {
    .host = "127.0.0.1";
    .port = "8001";
    .connect_timeout = 2s;
    .first_byte_timeout = 60s;
}

sub vcl_init {
    app.add_backend(app_1);
}

# Purge requests (PURGE with an xkey-purge header) are accepted from these addresses only.
acl purgers {
    "127.0.0.1";
    "::1";
}

# Balancers in front that terminate TLS and say so in X-Forwarded-Proto: believed from
# these addresses only (an address, or "10.0.0.0"/8). Empty: no such balancer.
acl tls_proxies {
}
