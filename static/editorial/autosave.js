// No lost work in the article form: what the editor types is kept on the server a few
// seconds after they stop typing (a crash or a closed tab loses at most that), the
// newer unsaved text is offered back when they return, and the form says who else has
// the article open. The conflict check on save stays the last line of defence.
(function () {
  "use strict";

  var FIELDS = ["title", "summary", "body"];
  var AUTOSAVE_AFTER = 2000; // ms after the last keystroke
  var PRESENCE_EVERY = 10000; // the server forgets a page silent for 25 s (editorial/keeping.py)

  function csrfToken() {
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  function post(url, data) {
    return fetch(url, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken() },
    }).then(function (response) {
      if (!response.ok) {
        throw new Error(response.status);
      }
      return response.json();
    });
  }

  function setUp() {
    var box = document.getElementById("keeping");
    if (!box) {
      return;
    }
    var status = box.querySelector(".keeping__status");
    var timer = null;

    function save() {
      var data = new FormData();
      data.append("article", box.dataset.article || "");
      FIELDS.forEach(function (name) {
        var field = document.getElementById("id_" + name);
        data.append(name, field ? field.value : "");
      });
      post(box.dataset.autosaveUrl, data)
        .then(function (answer) {
          status.textContent = "Your text was kept at " + answer.shown + " (not yet saved).";
        })
        .catch(function () {
          status.textContent = "Your text could not be kept just now; save the form to be sure.";
        });
    }

    FIELDS.forEach(function (name) {
      var field = document.getElementById("id_" + name);
      if (field) {
        field.addEventListener("input", function () {
          clearTimeout(timer);
          timer = setTimeout(save, AUTOSAVE_AFTER);
        });
      }
    });

    var restore = box.querySelector(".keeping__restore");
    if (restore) {
      var kept = JSON.parse(document.getElementById("keeping-autosaved").textContent);
      restore.querySelector(".keeping__use").addEventListener("click", function () {
        FIELDS.forEach(function (name) {
          var field = document.getElementById("id_" + name);
          if (field && kept[name] !== undefined) {
            field.value = kept[name];
            field.dispatchEvent(new Event("input", { bubbles: true }));
          }
        });
        restore.hidden = true;
        status.textContent = "Your unsaved text is back in the form: save it to keep it.";
      });
      restore.querySelector(".keeping__dismiss").addEventListener("click", function () {
        restore.hidden = true;
      });
    }

    // Who else has the article open: each shown until the time the server said they
    // are forgotten (gone_in), by this page's own clock. A heartbeat that fails (this
    // editor's connection gone, the server restarting) or comes late (a tab in the
    // background, a laptop waking up) cannot keep a name up past that.
    var others = box.querySelector(".keeping__others");
    var present = [];
    var expiry = null;

    function learn(list) {
      var now = Date.now();
      present = list.map(function (other) {
        return { name: other.name, since: other.since, until: now + other.gone_in * 1000 };
      });
      show();
    }

    function show() {
      var now = Date.now();
      present = present.filter(function (other) {
        return other.until > now;
      });
      clearTimeout(expiry);
      if (!present.length) {
        others.hidden = true;
        return;
      }
      others.textContent =
        present
          .map(function (other) {
            return other.name + " has had this article open since " + other.since;
          })
          .join("; ") + ". Your saves are checked against theirs: the later one is told.";
      others.hidden = false;
      var next = Math.min.apply(
        null,
        present.map(function (other) {
          return other.until;
        })
      );
      expiry = setTimeout(show, next - now);
    }

    var shown = document.getElementById("keeping-others");
    if (shown) {
      learn(JSON.parse(shown.textContent));
    }

    function heartbeat() {
      if (!box.dataset.presenceUrl) {
        return;
      }
      post(box.dataset.presenceUrl, new FormData())
        .then(function (answer) {
          learn(answer.others);
        })
        .catch(show);
    }
    heartbeat();
    setInterval(heartbeat, PRESENCE_EVERY);
    // Back in view, online again or restored from the back/forward cache: what is shown
    // is checked against the clock at once, and asked again.
    function again() {
      if (document.visibilityState === "visible") {
        show();
        heartbeat();
      }
    }
    document.addEventListener("visibilitychange", again);
    window.addEventListener("online", again);
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) {
        again();
      }
    });
    // A closed tab (or one navigated away) says so at once: the others' banner goes at
    // their next heartbeat. A beacon, since the page may be gone before a fetch ends.
    window.addEventListener("pagehide", function () {
      if (!box.dataset.presenceUrl || !navigator.sendBeacon) {
        return;
      }
      var data = new FormData();
      data.append("leave", "1");
      data.append("csrfmiddlewaretoken", csrfToken());
      navigator.sendBeacon(box.dataset.presenceUrl, data);
    });
  }

  document.addEventListener("DOMContentLoaded", setUp);
})();
