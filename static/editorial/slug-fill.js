// The slug field fills itself from the title with the server's own rule
// (news.slugs.slug_from_title: any script, "Go 1.23" -> "go-1-23"), as long as the
// editor has not typed a slug of their own. Replaces the admin's prepopulated field,
// whose JavaScript makes different slugs ("go-123").
// As the title is typed, a story already at its address is named under the title, with
// a link to it: found then, not as a refused save in a folded section.
(function () {
  "use strict";

  function setUp() {
    var slug = document.getElementById("id_slug");
    var source = document.getElementById(slug && slug.dataset.slugFrom);
    if (!slug || !source) {
      return;
    }
    var typed = slug.value !== "";
    var timer = null;
    slug.addEventListener("input", function () {
      typed = slug.value !== "";
    });

    var warning = document.createElement("p");
    warning.className = "title-taken";
    warning.setAttribute("role", "status");
    warning.hidden = true;
    source.insertAdjacentElement("afterend", warning);

    function warn(taken) {
      warning.textContent = "";
      warning.hidden = !taken;
      if (taken) {
        var link = document.createElement("a");
        link.href = taken.url;
        link.textContent = taken.title;
        warning.append("A story of this title exists: ", link, ". Its address is taken.");
      }
    }

    function fill() {
      var text = source.value;
      var url =
        slug.dataset.slugUrl +
        "?" +
        new URLSearchParams({ text: text, article: slug.dataset.article || "" });
      fetch(url, { credentials: "same-origin" })
        .then(function (response) {
          return response.ok ? response.json() : null;
        })
        .then(function (data) {
          if (!data) {
            return;
          }
          if (!typed) {
            slug.value = data.slug;
          }
          warn(data.taken);
          // The title last checked: what a test (or a curious editor) can wait for.
          warning.dataset.checked = text;
        })
        .catch(function () {
          // Left empty, the server makes the slug on save.
        });
    }

    source.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(fill, 250);
    });
  }

  document.addEventListener("DOMContentLoaded", setUp);
})();
