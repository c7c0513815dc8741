// The slug field fills itself from the title with the server's own rule
// (news.slugs.slug_from_title: any script, "Go 1.23" -> "go-1-23"), as long as the
// editor has not typed a slug of their own. Replaces the admin's prepopulated field,
// whose JavaScript makes different slugs ("go-123").
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

    function fill() {
      if (typed) {
        return;
      }
      var url = slug.dataset.slugUrl + "?" + new URLSearchParams({ text: source.value });
      fetch(url, { credentials: "same-origin" })
        .then(function (response) {
          return response.ok ? response.json() : null;
        })
        .then(function (data) {
          if (data && !typed) {
            slug.value = data.slug;
          }
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
