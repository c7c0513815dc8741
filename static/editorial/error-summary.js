// Errors you can find: the summary at the top of the form takes the focus (a screen
// reader reads it, the page shows it), and each of its links puts the cursor in its field.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var summary = document.querySelector(".error-summary");
    if (!summary) {
      var first = document.querySelector("[data-focus-on-load]");
      var field = first && document.getElementById(first.dataset.focusOnLoad);
      if (field) {
        field.focus();
      }
      return;
    }
    summary.focus();
    summary.addEventListener("click", function (event) {
      var link = event.target.closest("a[href^='#']");
      if (!link) {
        return;
      }
      var target = document.getElementById(link.getAttribute("href").slice(1));
      if (!target) {
        return;
      }
      event.preventDefault();
      target.scrollIntoView({ block: "center" });
      target.focus({ preventScroll: true });
    });
  });
})();
