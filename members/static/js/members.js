// Members' conveniences on pages every reader shares. A story's page is the same
// cached page for everyone (no cookie reaches it: the member's cookie is sent to
// /account/ only), so what is personal is asked here, from /account/, in a request of
// its own, and only in a browser that signed in (noted in its localStorage by the
// account's pages). Everyone else gets a plain link and no request at all.
(function () {
  "use strict";

  var script = document.currentScript;
  var KEY = "skillo.member";

  function remember(signedIn) {
    try {
      if (signedIn) {
        window.localStorage.setItem(KEY, "yes");
      } else {
        window.localStorage.removeItem(KEY);
      }
    } catch (error) {
      // Storage refused (private mode): every story then shows the sign-in link.
    }
  }

  function signedInBefore() {
    try {
      return window.localStorage.getItem(KEY) === "yes";
    } catch (error) {
      return false;
    }
  }

  var note = script.getAttribute("data-signed-in");
  if (note) {
    remember(note === "yes");
    return;
  }

  var stateUrl = script.getAttribute("data-story");
  if (!stateUrl) {
    return;
  }

  function place(bar) {
    var footer = document.querySelector(".article-footer");
    if (footer) {
      footer.parentNode.insertBefore(bar, footer);
    } else {
      document.querySelector("main").appendChild(bar);
    }
  }

  var bar = document.createElement("p");
  bar.className = "member-bar";

  function signInLink() {
    bar.textContent = "";
    var link = document.createElement("a");
    link.href = script.getAttribute("data-sign-in");
    link.textContent = "Sign in to save stories for later";
    bar.appendChild(link);
  }

  function saveButton(state) {
    bar.textContent = "";
    var button = document.createElement("button");
    button.type = "button";
    button.className = "link-button member-save";
    var status = document.createElement("span");
    status.className = "member-status";
    status.setAttribute("role", "status");

    function show(saved) {
      button.textContent = saved ? "Saved: remove from my list" : "Save for later";
      button.setAttribute("aria-pressed", saved ? "true" : "false");
      state.saved = saved;
    }

    button.addEventListener("click", function () {
      button.disabled = true;
      fetch(state.saved ? state.remove : state.save, {
        method: "POST",
        credentials: "same-origin",
        headers: { "X-CSRFToken": state.csrf_token, Accept: "application/json" },
      })
        .then(function (response) {
          if (!response.ok) {
            throw new Error(String(response.status));
          }
          return response.json();
        })
        .then(function (answer) {
          show(answer.saved);
          status.textContent = answer.saved ? " Saved to your account." : " Removed.";
        })
        .catch(function () {
          status.textContent = " Not saved: please try again.";
        })
        .then(function () {
          button.disabled = false;
        });
    });
    show(state.saved);
    bar.appendChild(button);
    bar.appendChild(document.createTextNode(" · "));
    var portal = document.createElement("a");
    portal.href = state.portal + "#saved";
    portal.textContent = "Saved stories";
    bar.appendChild(portal);
    bar.appendChild(status);
  }

  place(bar);
  if (!signedInBefore()) {
    signInLink();
    return;
  }
  fetch(stateUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then(function (response) {
      return response.ok ? response.json() : { signed_in: false };
    })
    .then(function (state) {
      if (state.signed_in) {
        saveButton(state);
      } else {
        remember(false);
        signInLink();
      }
    })
    .catch(signInLink);
})();
