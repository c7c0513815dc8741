// One page view, told to Skillo itself (readership/): the page's path, where the
// reader came from and a screen-width class. No cookie, no storage, nothing about the
// reader: /about/figures/ says what is counted.
(function (script) {
  var body = {
    p: location.pathname,
    r: document.referrer,
    w: innerWidth < 640 ? "s" : innerWidth < 1000 ? "m" : "l",
  };
  // The channel Skillo's own links name (?ref=newsletter), the same for every reader.
  var via = new URLSearchParams(location.search).get("ref");
  if (via) body.s = via;
  if (navigator.sendBeacon) navigator.sendBeacon(script.dataset.beacon, JSON.stringify(body));
})(document.currentScript);
