// One page view, told to Skillo itself (readership/): the page's path, where the
// reader came from and a screen-width class. No cookie, no storage, nothing about the
// reader: /about/figures/ says what is counted.
(function (script) {
  var body = JSON.stringify({
    p: location.pathname,
    r: document.referrer,
    w: innerWidth < 640 ? "s" : innerWidth < 1000 ? "m" : "l",
  });
  if (navigator.sendBeacon) navigator.sendBeacon(script.dataset.beacon, body);
})(document.currentScript);
