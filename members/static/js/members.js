// Members' conveniences on pages every reader shares. A story's page is the same
// cached page for everyone (no cookie reaches it: the member's cookie is sent to
// /account/ only), so what is personal is asked here, from /account/, in a request of
// its own, and only in a browser that signed in (noted in its localStorage by the
// account's pages). Everyone else gets a plain link and no personal request.
//
// The story's conversation (members' comments and fediverse replies) is in the cached
// page once the story has comments, and on its own address, which this script asks again
// after a member's change.
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

  // Back from signing in (members.views.follow_link): noted, and the mark taken away.
  if (window.location.hash === "#signed-in") {
    remember(true);
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }

  var note = script.getAttribute("data-signed-in");
  if (note) {
    remember(note === "yes");
    return;
  }

  var stateUrl = script.getAttribute("data-story");
  var conversationUrl = script.getAttribute("data-conversation");
  if (!stateUrl) {
    return;
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text) {
      node.textContent = text;
    }
    return node;
  }

  function post(url, token, fields) {
    var body = new FormData();
    Object.keys(fields || {}).forEach(function (name) {
      body.append(name, fields[name]);
    });
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": token, Accept: "application/json" },
      body: body,
    }).then(function (response) {
      return response.json().then(function (answer) {
        if (!response.ok) {
          var refused = new Error(answer.error || "Not saved: please try again.");
          refused.said = Boolean(answer.error); // the server's own reason, shown as is
          throw refused;
        }
        return answer;
      });
    });
  }

  function askState() {
    return fetch(stateUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        return response.ok ? response.json() : { signed_in: false };
      });
  }

  // The comment form's and controls' looks, from this origin (the CSP allows no other).
  var looks = script.getAttribute("data-css");
  if (looks) {
    var sheet = element("link");
    sheet.rel = "stylesheet";
    sheet.href = looks;
    document.head.appendChild(sheet);
  }

  // The save control, before the story's footer.
  var bar = element("p", "member-bar");
  var footer = document.querySelector(".article-footer");
  if (footer) {
    footer.parentNode.insertBefore(bar, footer);
  } else {
    document.querySelector("main").appendChild(bar);
  }

  function signInLink() {
    bar.textContent = "";
    var link = element("a", "", "Sign in to save stories for later and to comment");
    // Back to this story once signed in (members.views.follow_link).
    link.href =
      script.getAttribute("data-sign-in") + "?" + new URLSearchParams({ next: location.pathname });
    bar.appendChild(link);
  }

  function saveButton(state) {
    bar.textContent = "";
    var button = element("button", "link-button member-save");
    button.type = "button";
    var status = element("span", "member-status");
    status.setAttribute("role", "status");

    function show(saved) {
      button.textContent = saved ? "Saved: remove from my list" : "Save for later";
      button.setAttribute("aria-pressed", saved ? "true" : "false");
      state.saved = saved;
    }

    button.addEventListener("click", function () {
      button.disabled = true;
      post(state.saved ? state.remove : state.save, state.csrf_token)
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
    var portal = element("a", "", "Saved stories");
    portal.href = state.portal + "#saved";
    bar.appendChild(portal);
    bar.appendChild(status);
  }

  // The conversation: in the page once the story has comments (else its fediverse
  // replies), as every reader sees it; the script adds what is personal to it.
  var holder = document.querySelector(".conversation") || document.querySelector(".fediverse-replies");
  var state = null;

  function loadConversation(fresh) {
    if (!conversationUrl) {
      return Promise.resolve();
    }
    // After one's own change, an address Varnish has not kept: its copy may be stale.
    var url = conversationUrl + (fresh ? "?fresh=" + Date.now() : "");
    // Revalidated each time (its ETag makes that cheap): the browser's own copy may
    // be served stale for a minute (stale-while-revalidate) otherwise.
    return fetch(url, { headers: { Accept: "text/html" }, cache: "no-cache" })
      .then(function (response) {
        return response.ok ? response.text() : "";
      })
      .then(function (html) {
        if (!html) {
          return;
        }
        var parsed = new DOMParser().parseFromString(html, "text/html");
        var section = document.importNode(parsed.querySelector(".conversation"), true);
        if (holder) {
          holder.parentNode.replaceChild(section, holder);
        } else {
          var article = document.querySelector("article.article") || document.querySelector("main");
          article.appendChild(section);
        }
        holder = section;
        decorate(section);
      });
  }

  function report(item, id) {
    var button = element("button", "link-button comment-report", "Report");
    button.type = "button";
    button.addEventListener("click", function () {
      button.disabled = true;
      var ready = state ? Promise.resolve(state) : askState();
      ready
        .then(function (known) {
          return post("/comments/" + id + "/report/", known.csrf_token);
        })
        .then(function () {
          button.textContent = "Reported: thank you";
        })
        .catch(function (error) {
          button.disabled = false;
          button.textContent = error.said
            ? "Report (" + error.message + ")"
            : "Report (not sent: try again)";
        });
    });
    item.querySelector(".meta").appendChild(document.createTextNode(" · "));
    item.querySelector(".meta").appendChild(button);
  }

  function decorate(section) {
    var own = {};
    ((state && state.own_comments) || []).forEach(function (comment) {
      own[comment.id] = comment;
    });
    Array.prototype.forEach.call(section.querySelectorAll("[data-comment]"), function (item) {
      var id = item.getAttribute("data-comment");
      if (!item.querySelector(".reply-content")) {
        return; // a deleted comment's marker
      }
      var mine = own[id];
      if (!mine) {
        report(item, id);
      }
      if (state && state.may_comment && !item.parentNode.classList.contains("replies")) {
        var reply = element("button", "link-button comment-reply", "Reply");
        reply.type = "button";
        reply.addEventListener("click", function () {
          startReply(id);
        });
        item.querySelector(".meta").appendChild(document.createTextNode(" · "));
        item.querySelector(".meta").appendChild(reply);
      }
      if (mine && mine.editable) {
        var edit = element("button", "link-button comment-edit", "Edit");
        edit.type = "button";
        edit.addEventListener("click", function () {
          startEdit(mine, item);
        });
        item.querySelector(".meta").appendChild(document.createTextNode(" · "));
        item.querySelector(".meta").appendChild(edit);
      }
      if (mine) {
        var remove = element("button", "link-button comment-delete", "Delete");
        remove.type = "button";
        remove.addEventListener("click", function () {
          remove.disabled = true;
          post(mine.delete, state.csrf_token).then(function () {
            return loadConversation(true);
          });
        });
        item.querySelector(".meta").appendChild(document.createTextNode(" · "));
        item.querySelector(".meta").appendChild(remove);
      }
    });
    if (state && state.may_comment) {
      section.appendChild(commentForm());
    }
  }

  var form = null;
  var parentId = "";
  var editing = null;

  function commentForm() {
    if (form) {
      return form;
    }
    form = element("form", "comment-form");
    form.noValidate = true;
    var label = element("label", "", "Your comment");
    label.htmlFor = "comment-body";
    var text = element("textarea");
    text.id = "comment-body";
    text.name = "body";
    text.rows = 5;
    text.maxLength = 5000;
    text.required = true;
    var honeypot = element("p", "honeypot");
    honeypot.setAttribute("aria-hidden", "true");
    var trap = element("input");
    trap.name = "website";
    trap.tabIndex = -1;
    trap.autocomplete = "off";
    trap.setAttribute("aria-label", "Leave this empty");
    honeypot.appendChild(trap);
    var note = element("p", "form-note", "Plain text; addresses become links. Be kind.");
    var wait = null;
    if (state && state.comments_from) {
      // Before the box: a new member learns of the wait before writing, not after.
      wait = element("p", "comment-wait", state.comments_from);
    }
    var status = element("p", "comment-status");
    status.setAttribute("role", "status");
    var button = element("button", "button", "Post comment");
    button.type = "submit";
    var cancel = element("button", "link-button comment-cancel", "Cancel");
    cancel.type = "button";
    cancel.hidden = true;
    cancel.addEventListener("click", function () {
      parentId = "";
      editing = null;
      label.textContent = "Your comment";
      button.textContent = "Post comment";
      cancel.hidden = true;
    });
    if (wait) {
      form.appendChild(wait);
    }
    form.appendChild(label);
    form.appendChild(text);
    form.appendChild(honeypot);
    form.appendChild(note);
    form.appendChild(button);
    form.appendChild(document.createTextNode(" "));
    form.appendChild(cancel);
    form.appendChild(status);
    form.setLabel = function (words, action) {
      label.textContent = words;
      button.textContent = action;
      cancel.hidden = false;
      text.focus();
    };
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      button.disabled = true;
      status.textContent = "";
      var sending = editing
        ? post(editing.edit, state.csrf_token, { body: text.value })
        : post(state.comment, state.csrf_token, {
            body: text.value,
            parent: parentId,
            website: trap.value,
          });
      sending
        .then(function (answer) {
          text.value = "";
          cancel.click();
          status.textContent =
            answer.state === "pending"
              ? "Thank you: your comment waits for a moderator."
              : "Posted.";
          return askState().then(function (known) {
            state = known;
            return loadConversation(true);
          });
        })
        .catch(function (error) {
          // What was typed stays in the box.
          status.setAttribute("role", "alert");
          status.textContent = error.message;
        })
        .then(function () {
          button.disabled = false;
        });
    });
    return form;
  }

  function startReply(id) {
    parentId = id;
    editing = null;
    form.setLabel("Your reply", "Post reply");
  }

  function startEdit(mine, item) {
    editing = mine;
    parentId = "";
    form.querySelector("textarea").value = item.querySelector(".reply-content").innerText.trim();
    form.setLabel("Edit your comment", "Save the edit");
  }

  var personal = signedInBefore()
    ? askState().catch(function () {
        return { signed_in: false };
      })
    : Promise.resolve({ signed_in: false });
  personal.then(function (known) {
    if (known.signed_in) {
      state = known;
      saveButton(known);
    } else {
      if (signedInBefore()) {
        remember(false);
      }
      signInLink();
    }
    if (holder && holder.classList.contains("conversation")) {
      decorate(holder);
      return Promise.resolve();
    }
    // No comments yet: a member gets the conversation with its form; everyone else
    // keeps the page as it came, nothing brought in after it has shown.
    return known.signed_in ? loadConversation(false) : Promise.resolve();
  });
})();
