// A live story's page, kept up to date: every 3 seconds it asks the story's updates
// since the version it shows (live.views.updates, a cached answer that Varnish gives most
// readers). New entries wait behind a "N new updates" button, so the text under the
// reader's eyes never moves; edits and deletions apply in place; a polite live region
// says what came. It stops when coverage ends. Without this script the page is whole.
(function () {
  "use strict";
  var section = document.querySelector("[data-live-updates]");
  if (!section || !window.fetch) return;
  var EVERY = 3000;
  var url = section.getAttribute("data-live-updates");
  var version = parseInt(section.getAttribute("data-version"), 10) || 0;
  var list = section.querySelector(".live__entries");
  var bar = section.querySelector(".live__new");
  var button = section.querySelector(".live__new-button");
  var announcer = section.querySelector(".live__announcer");
  var pending = [];
  var timer = null;
  var stopped = false;
  var busy = false;

  function element(html) {
    var template = document.createElement("template");
    template.innerHTML = html.trim();
    return template.content.firstElementChild;
  }

  function say(words) {
    // Emptied first: the same words twice are announced twice.
    announcer.textContent = "";
    window.setTimeout(function () { announcer.textContent = words; }, 50);
  }

  function updates(count) {
    return count === 1 ? "1 new update" : count + " new updates";
  }

  function showButton() {
    if (!pending.length) {
      bar.hidden = true;
      return;
    }
    button.textContent = "Show " + updates(pending.length);
    bar.hidden = false;
  }

  function ensureList() {
    if (list) return list;
    list = document.createElement("ol");
    list.className = "live__entries";
    var none = section.querySelector(".live__none");
    if (none) none.replaceWith(list); else bar.after(list);
    return list;
  }

  function apply(answer) {
    if (typeof answer.version !== "number" || answer.version <= version) return;
    if (answer.reload) {
      pending = [{ reload: true }];
      button.textContent = "New updates: reload the page";
      bar.hidden = false;
      say("New updates");
      version = answer.version;
      return;
    }
    var fresh = 0;
    (answer.removed || []).forEach(function (id) {
      var shown = document.getElementById("entry-" + id);
      if (shown) shown.remove();
      pending = pending.filter(function (item) { return item.id !== id; });
    });
    (answer.entries || []).forEach(function (entry) {
      var node = element(entry.html);
      var shown = document.getElementById("entry-" + entry.id);
      if (shown) {
        shown.replaceWith(node);
        return;
      }
      var waiting = pending.findIndex(function (item) { return item.id === entry.id; });
      if (waiting >= 0) {
        pending[waiting].node = node;
      } else {
        pending.push({ id: entry.id, node: node });
        fresh += 1;
      }
    });
    if (answer.summary !== undefined) {
      var summary = document.querySelector("[data-live-summary]");
      if (summary) summary.innerHTML = answer.summary;
    }
    version = answer.version;
    showButton();
    if (fresh) say(updates(fresh));
    var state = section.querySelector(".live__state");
    if (state && answer.status) state.innerHTML = answer.status;
    if (answer.state === "ended") {
      stop();
      say("Live coverage has ended.");
    }
  }

  function reveal() {
    if (pending.length && pending[0].reload) {
      window.location.reload();
      return;
    }
    var target = ensureList();
    // Oldest first at the top each time: the newest ends up first.
    var first = null;
    pending.forEach(function (item) {
      item.node.setAttribute("data-fresh", "");
      target.prepend(item.node);
      first = item.node;
    });
    var count = pending.length;
    pending = [];
    showButton();
    if (first) {
      first.setAttribute("tabindex", "-1");
      first.focus();
    }
    say(count === 1 ? "1 update shown" : count + " updates shown");
  }

  function ask() {
    timer = null;
    if (stopped || busy) return;
    busy = true;
    fetch(url + "?since=" + version, { headers: { Accept: "application/json" }, cache: "no-cache" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (answer) { if (answer) apply(answer); })
      .catch(function () { /* offline or failing: ask again later */ })
      .then(function () { busy = false; schedule(); });
  }

  function schedule() {
    if (!stopped && !timer && !document.hidden) timer = window.setTimeout(ask, EVERY);
  }

  function stop() {
    stopped = true;
    if (timer) window.clearTimeout(timer);
    timer = null;
  }

  button.addEventListener("click", reveal);
  document.addEventListener("visibilitychange", function () {
    // A hidden tab asks nothing; shown again, it asks at once.
    if (document.hidden) {
      if (timer) window.clearTimeout(timer);
      timer = null;
    } else if (!stopped && !timer) {
      ask();
    }
  });
  schedule();
})();
