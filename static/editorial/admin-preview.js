// The article as readers will see it, beside the body while the editor types: the
// server renders the form's unsaved data with the public page's renderer, sanitiser
// and stylesheet (editorial/preview.py); it is shown in an <iframe srcdoc>, so the
// site's styles and the admin's do not meet.
(function () {
  "use strict";

  function csrfToken() {
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  function setUp() {
    var body = document.getElementById("id_body");
    var pane = document.getElementById("markdown-preview");
    if (!body || !pane) {
      return;
    }
    var row = body.closest(".form-row") || body.parentNode;
    // The body and its preview side by side (stacked on narrow screens: CSS).
    var writing = document.createElement("div");
    writing.className = "writing";
    row.parentNode.insertBefore(writing, row);
    writing.appendChild(row);
    writing.appendChild(pane);
    pane.hidden = false;
    // Made here rather than in the page's HTML, which holds no frame of any kind; no
    // scripts run in it (sandbox), links open in a new tab.
    var frame = document.createElement("iframe");
    frame.className = "markdown-preview__output";
    frame.title = "Preview of the article";
    frame.setAttribute("sandbox", "allow-same-origin allow-popups");
    var slot = pane.querySelector(".markdown-preview__output");
    slot.parentNode.replaceChild(frame, slot);
    var timer = null;

    function fit() {
      var doc = frame.contentDocument;
      if (doc && doc.documentElement) {
        frame.style.height = doc.documentElement.scrollHeight + 24 + "px";
      }
    }

    function refresh() {
      fetch(pane.dataset.url, {
        method: "POST",
        body: new FormData(body.form),
        credentials: "same-origin",
        headers: { "X-CSRFToken": csrfToken() },
      })
        .then(function (response) {
          if (!response.ok) {
            throw new Error(response.status);
          }
          return response.text();
        })
        .then(function (html) {
          frame.srcdoc = html;
        })
        .catch(function () {
          frame.srcdoc =
            "<p>The preview could not be loaded; your text is unaffected.</p>";
        });
    }

    frame.addEventListener("load", fit);
    pane.querySelector(".markdown-preview__refresh").addEventListener("click", refresh);
    body.form.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, 500);
    });
    body.form.addEventListener("change", function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, 100);
    });
    refresh();
  }

  document.addEventListener("DOMContentLoaded", setUp);
})();
