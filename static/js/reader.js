// Small conveniences for readers, none of them needed: without this script every feed
// address is on the page to select. Loaded (deferred, from this origin: the CSP allows
// no inline script) by the pages that have them: /follow/ and a feed's page. It loads
// nothing and sends nothing.
(function () {
  "use strict";

  var MASTODON_KEY = "skillo.mastodon-server";
  var status = document.querySelector(".copy-status");

  function say(text) {
    if (status) {
      status.textContent = text;
    }
  }

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
})();
