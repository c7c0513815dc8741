# Skillo behind Varnish 7.1: public pages kept until the app purges them by key.
#
# The app names what each cached page shows in its `xkey` response header (space-separated
# keys such as `article:12 tag:5 schedule`) and, when something changes, sends one
# `PURGE /` request with the changed keys in `xkey-purge` (pagecache/varnish.py). A purge
# is soft: the pages stay in grace, so the next reader still gets the old page at once
# while Varnish fetches the new one in the background; nobody waits on the app server.
# Content that was withdrawn (unpublished, deleted, hidden) is purged hard instead
# (`xkey-hard: 1`): its pages, every query variant, are dropped at once.
#
# The app servers are the backends of the director `app` (round robin). With several, each
# is probed (probe.vcl, included by backend.vcl): a sick one gets no request. A request
# that could not reach one (it died between probes) is tried on the next.
#
# Run: varnishd -a :80 -a https=127.0.0.1:8443,PROXY -f /path/to/skillo.vcl \
#          -p vcl_path=/path/to/deploy/varnish ...
# with the TLS terminator (hitch with write-proxy-v2, nginx's stream proxy_protocol)
# sending to the "https" address. Only the terminator may reach that address.
# Or behind a balancer that terminates TLS and sets X-Forwarded-Proto (and appends the
# reader's address to X-Forwarded-For): list its addresses in the ACL tls_proxies.
# The backends (added to `app`), the purge ACL and tls_proxies (empty: no such balancer)
# are in backend.vcl (found on vcl_path).

vcl 4.1;

import directors;
import std;
import xkey;

sub vcl_init {
    new app = directors.round_robin();
}

include "backend.vcl";

sub vcl_recv {
    set req.backend_hint = app.backend();
    # The scheme is how the request reached Varnish, never what the client says: a
    # client's X-Forwarded-Proto: https would otherwise be stored with the page (https
    # links, HSTS) and served to every later reader. Requests on the listen address named
    # "https" came through the TLS terminator in front (varnishd -a https=...,PROXY;
    # deploy/varnish/serve.sh, VARNISH_TLS_BIND). A balancer that terminates TLS and says
    # so in X-Forwarded-Proto is believed only from the addresses of the ACL tls_proxies
    # (backend.vcl; VARNISH_TLS_PROXIES); all others are plain HTTP. The other headers
    # that name a scheme, host or port to the app server (gunicorn reads X-Forwarded-Ssl
    # and X-Forwarded-Protocol too) are dropped for the same reason.
    if (local.socket == "https") {
        set req.http.X-Forwarded-Proto = "https";
    } else if (client.ip ~ tls_proxies && req.http.X-Forwarded-Proto ~ "^(?i)https$") {
        set req.http.X-Forwarded-Proto = "https";
        # Varnish appended the balancer's address to X-Forwarded-For; the entry before
        # it is the reader's, as the balancer saw them, and the app reads the last one.
        set req.http.X-Forwarded-For = regsub(req.http.X-Forwarded-For, ",\s*[^,]*$", "");
    } else {
        set req.http.X-Forwarded-Proto = "http";
    }
    unset req.http.X-Forwarded-Ssl;
    unset req.http.X-Forwarded-Protocol;
    unset req.http.X-Forwarded-Host;
    unset req.http.X-Forwarded-Port;
    unset req.http.Forwarded;
    # X-Forwarded-For is Varnish's own: it appends client.ip (the reader's address, or
    # the one the PROXY header names) to what the client sent, and the app reads only
    # that last entry (TRUSTED_PROXY_COUNT=1).
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        if (!req.http.xkey-purge) {
            return (synth(400, "No xkey-purge header"));
        }
        # Soft by default: readers keep getting the stale page while the new one is
        # fetched. `xkey-hard: 1` drops the pages at once (content that must go now).
        if (req.http.xkey-hard) {
            set req.http.n-gone = xkey.purge(req.http.xkey-purge);
        } else {
            set req.http.n-gone = xkey.softpurge(req.http.xkey-purge);
        }
        return (synth(200, "Invalidated " + req.http.n-gone + " objects"));
    }
    # Editors (a session) and API clients with a token see what readers do not: never
    # from the cache, never stored (the app also answers them `private, no-cache`). The
    # admin always goes to the app, with its cookies (CSRF, login).
    if (req.url ~ "^/admin(/|$)" || req.http.Authorization) {
        return (pass);
    }
    # A member's pages (the members app): their cookie is sent to /account/ only, and
    # every answer there is personal and never stored.
    if (req.url ~ "^/account/") {
        return (pass);
    }
    # The session cookie: `sessionid`, or `__Host-sessionid` in production settings that
    # prefix it (tests/varnish checks this pattern against SESSION_COOKIE_NAME).
    if (req.http.Cookie ~ "(^|;\s*)(__Host-)?sessionid=") {
        return (pass);
    }
    # A form sent (sign-up, confirm, preferences, unsubscribe, join) carries the CSRF
    # cookie its page set: anything but GET and HEAD goes to the app with its cookies,
    # never from the cache. Dropping them made every reader's form answer "expired".
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # On a GET, any other cookie (analytics, the CSRF token of a form seen earlier)
    # changes nothing a reader is shown: drop it so the reader is served from the cache.
    # (A form's page is never kept, and sets its CSRF cookie afresh.)
    unset req.http.Cookie;
    # The home page and an article's, author's or topic's page answer ActivityStreams to
    # a fediverse server (fediverse.negotiation) and say Vary: Accept. Those requests go
    # to the app; every other Accept is one value here, so browsers' many Accept headers
    # share one stored page instead of splitting it.
    if (req.url ~ "^/((articles|authors|tags)/[^/?]+/)?(\?.*)?$") {
        if (req.http.Accept ~ "application/(activity|ld)\+json") {
            return (pass);
        }
        set req.http.Accept = "text/html";
    }
    # Then the built-in vcl_recv: GET and HEAD are looked up.
}

sub vcl_hash {
    # An https page (https links, HSTS) and a plain one are two pages. Then the built-in
    # vcl_hash: the URL and the host.
    hash_data(req.http.X-Forwarded-Proto);
}

sub vcl_backend_response {
    # A failed refetch keeps the page Varnish has: readers get the stale page (grace)
    # while the app server is down or failing, as stale-if-error asks.
    if (bereq.is_bgfetch && beresp.status >= 500) {
        return (abandon);
    }
    # Only what the app says may be shared is kept: no invented default TTL. (A 404 for
    # an article about to be published must not stay cached for two minutes.)
    if (!beresp.http.Cache-Control && !beresp.http.Expires) {
        set beresp.ttl = 0s;
    }
    # The app sends `Surrogate-Control: max-age=N` only to a cache it purges (this one):
    # longer than the s-maxage meant for caches it cannot purge, and still capped by the
    # next scheduled publication. It is for Varnish alone and is not passed on.
    if (beresp.http.Surrogate-Control ~ "max-age=[0-9]+") {
        set beresp.ttl = std.duration(
            regsub(beresp.http.Surrogate-Control, "^.*max-age=([0-9]+).*$", "\1s"), 0s);
    }
    unset beresp.http.Surrogate-Control;
    # Long grace: a purged or expired page is served stale at once while the new one is
    # fetched in the background, and kept for a day if the app server is down.
    set beresp.grace = 24h;
    # Then the built-in vcl_backend_response: nothing with Set-Cookie, `private`,
    # `no-store` or `no-cache` is stored, nor anything whose TTL is zero.
}

sub vcl_backend_error {
    # An app server could not be reached (killed since its last probe): a GET or HEAD is
    # tried again, on the director's next. Three times: the round robin is shared by every
    # request at once, so the next may be the dead one again (one retry left 2 of 211
    # readers' requests a 503 when one of two machines was killed under load). If none
    # answers, keep serving the page Varnish has.
    if (bereq.retries < 3 && (bereq.method == "GET" || bereq.method == "HEAD")) {
        return (retry);
    }
    if (bereq.is_bgfetch) {
        return (abandon);
    }
}

sub vcl_deliver {
    # HIT, STALE (a purged or expired page, served while the new one is fetched), MISS
    # (fetched now) or PASS (never cached).
    if (obj.uncacheable) {
        set resp.http.X-Cache = "PASS";
    } elsif (obj.hits > 0 && obj.ttl <= 0s) {
        set resp.http.X-Cache = "STALE";
    } elsif (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
    # The keys are for purging here; readers need not carry them.
    unset resp.http.xkey;
}
