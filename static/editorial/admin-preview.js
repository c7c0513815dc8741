// Live Markdown preview in the article form, rendered by the server's own renderer and
// sanitiser (the HTML it returns is already safe to insert).
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
    row.parentNode.insertBefore(pane, row.nextSibling);
    pane.hidden = false;
    var output = pane.querySelector(".markdown-preview__output");
    var timer = null;

    function refresh() {
      var data = new FormData();
      data.append("body", body.value);
      fetch(pane.dataset.url, {
        method: "POST",
        body: data,
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
          output.innerHTML = html;
        })
        .catch(function () {
          output.textContent = "The preview could not be loaded; your text is unaffected.";
        });
    }

    pane.querySelector(".markdown-preview__refresh").addEventListener("click", refresh);
    body.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, 400);
    });
    refresh();
  }

  document.addEventListener("DOMContentLoaded", setUp);
})();
