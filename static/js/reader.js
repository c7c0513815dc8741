// Small conveniences for readers, none of them needed: without this script every feed
// address is on the page to select, and every share link but Mastodon's is a plain
// link. Loaded (deferred, from this origin: the CSP allows no inline script) by the
// pages that have them: /follow/, a feed's page, an article. It loads nothing and
// sends nothing; the one thing it keeps is the reader's Mastodon server, in this
// browser's localStorage, never on the server (the page is the same for every reader).
(function () {
  "use strict";

  var MASTODON_KEY = "skillo.mastodon-server";
  var status = document.querySelector(".copy-status");

  function say(text) {
    if (status) {
      status.textContent = text;
    }
  }

  // Embed cards: a video's player is loaded only when the reader asks for it, and only
  // then does the page make any request to the video's site (the CSP allows frames from
  // that player's origin alone). Until then the card is Skillo's own words and picture.
  Array.prototype.forEach.call(document.querySelectorAll(".embed__play"), function (button) {
    button.addEventListener("click", function () {
      var card = button.closest(".embed");
      var frame = document.createElement("iframe");
      var src = button.getAttribute("data-embed-src");
      frame.src = src + (src.indexOf("?") === -1 ? "?" : "&") + "autoplay=1";
      frame.title = button.getAttribute("data-embed-title") || "Video";
      frame.className = "embed__player";
      frame.setAttribute("allow", "autoplay; encrypted-media; fullscreen; picture-in-picture");
      frame.setAttribute("allowfullscreen", "");
      frame.setAttribute("referrerpolicy", "strict-origin-when-cross-origin");
      var width = Number(button.getAttribute("data-embed-width"));
      var height = Number(button.getAttribute("data-embed-height"));
      if (width && height) {
        frame.style.aspectRatio = width + " / " + height;
      }
      card.classList.add("embed--playing");
      card.insertBefore(frame, card.firstChild);
      Array.prototype.forEach.call(card.querySelectorAll(".embed__picture, .embed__play"), function (node) {
        node.remove();
      });
      frame.focus();
    });
  });

  // Copy buttons: [data-copy] holds the text. Without the Clipboard API (a page not
  // served over HTTPS) the browser's own prompt shows the text, selected, to copy.
  function copied(button) {
    var label = button.querySelector(".copy-label") || button;
    var text = label.textContent;
    label.textContent = "Copied";
    button.classList.add("is-copied");
    window.setTimeout(function () {
      label.textContent = text;
      button.classList.remove("is-copied");
    }, 2000);
  }

  function copy(button) {
    var text = button.dataset.copy;
    var fallback = function () {
      window.prompt("Copy this address:", text);
    };
    if (!navigator.clipboard || !window.isSecureContext) {
      fallback();
      return;
    }
    navigator.clipboard.writeText(text).then(function () {
      copied(button);
      say("Copied " + text);
    }, fallback);
  }

  // Shown only here: without the script they would do nothing.
  function reveal(element) {
    element.hidden = false;
    var item = element.closest("li[hidden]");
    if (item) {
      item.hidden = false;
    }
  }

  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    reveal(button);
    button.addEventListener("click", function () {
      copy(button);
    });
  });

  // Sharing an article (.share holds its title and address).
  var share = document.querySelector(".share");
  if (!share) {
    return;
  }
  var title = share.dataset.shareTitle;
  var url = share.dataset.shareUrl;

  // The browser's own share sheet, where it has one.
  var native = share.querySelector(".share-native");
  if (native && navigator.share) {
    reveal(native);
    native.addEventListener("click", function () {
      navigator.share({ title: title, url: url }).catch(function () {
        // Cancelled by the reader: nothing to do.
      });
    });
  }

  // Mastodon: each reader's own server, asked for once and remembered in this browser.
  var mastodon = share.querySelector(".share-mastodon");
  var form = share.querySelector(".mastodon-form");
  if (!mastodon || !form) {
    return;
  }
  var input = form.querySelector("input");
  var change = share.querySelector(".mastodon-change");
  var forget = form.querySelector(".mastodon-forget");
  var problem = form.querySelector(".mastodon-problem");

  function stored() {
    try {
      return window.localStorage.getItem(MASTODON_KEY);
    } catch (error) {
      return null; // storage turned off: asked each time
    }
  }

  function remember(host) {
    try {
      if (host) {
        window.localStorage.setItem(MASTODON_KEY, host);
      } else {
        window.localStorage.removeItem(MASTODON_KEY);
      }
    } catch (error) {
      // Not remembered; the share still works this once.
    }
  }

  // "mastodon.social", "https://mastodon.social/", "@me@mastodon.social": the host.
  function serverOf(typed) {
    var host = typed.trim().toLowerCase();
    host = host.replace(/^https?:\/\//, "").replace(/^@?[^@\s\/]+@/, "").replace(/\/.*$/, "");
    return /^[a-z0-9-]+(\.[a-z0-9-]+)+(:[0-9]{1,5})?$/.test(host) ? host : null;
  }

  function shareUrl(host) {
    return "https://" + host + "/share?text=" + encodeURIComponent(title + " " + url);
  }

  // With a server remembered the link goes straight to it; without, it opens the form.
  function update() {
    var host = stored();
    mastodon.href = host ? shareUrl(host) : "#" + form.id;
    if (host) {
      mastodon.removeAttribute("aria-expanded");
    } else {
      mastodon.setAttribute("aria-expanded", String(!form.hidden));
    }
    change.hidden = !host || !form.hidden;
    forget.hidden = !host;
  }

  function ask() {
    form.hidden = false;
    input.value = stored() || "";
    update();
    input.focus();
  }

  reveal(mastodon);
  update();
  mastodon.addEventListener("click", function (event) {
    if (!stored()) {
      event.preventDefault();
      ask();
    }
  });
  change.addEventListener("click", ask);

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var host = serverOf(input.value);
    problem.hidden = Boolean(host);
    if (!host) {
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    input.removeAttribute("aria-invalid");
    remember(host);
    window.location.assign(shareUrl(host));
  });

  forget.addEventListener("click", function () {
    remember(null);
    input.value = "";
    update();
    say("Your Mastodon server is forgotten.");
    input.focus();
  });
})();
