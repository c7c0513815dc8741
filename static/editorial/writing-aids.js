// While writing: the title's and summary's length against their limits (and what a
// search result shows), the body's words and reading time; a small toolbar and the
// keyboard shortcuts writers expect: Ctrl/Cmd+S saves, Ctrl/Cmd+B, I and K wrap the
// selection in Markdown bold, italic and a link.
(function () {
  "use strict";

  function counter(field, render) {
    var out = document.createElement("p");
    out.className = "writing-count help";
    out.setAttribute("aria-live", "polite");
    out.id = field.id + "-count";
    field.setAttribute("aria-describedby", ((field.getAttribute("aria-describedby") || "") + " " + out.id).trim());
    field.insertAdjacentElement("afterend", out);
    function update() {
      render(field.value, out);
    }
    field.addEventListener("input", update);
    update();
  }

  function lengthAgainstLimit(value, out, field) {
    var limit = Number(field.dataset.limit);
    var shown = Number(field.dataset.shownInSearch);
    var length = value.length;
    var words = length + " / " + limit + " characters";
    if (length > limit) {
      words = length + " characters: " + (length - limit) + " over the limit of " + limit;
    } else if (shown && length > shown) {
      words += " (search results show about the first " + shown + ")";
    }
    out.textContent = words;
    out.classList.toggle("writing-count--over", length > limit);
  }

  function wordsAndMinutes(value, out, field) {
    var words = value.trim() ? value.trim().split(/\s+/).length : 0;
    var perMinute = Number(field.dataset.wordsPerMinute) || 230;
    // As news.models.Article.reading_minutes counts them: a minute begun counts.
    var minutes = Math.max(1, Math.ceil(words / perMinute));
    out.textContent = words.toLocaleString("en") + " word" + (words === 1 ? "" : "s") +
      " · " + minutes + " min read";
  }

  function wrap(body, before, after, placeholder) {
    var start = body.selectionStart;
    var end = body.selectionEnd;
    var chosen = body.value.slice(start, end) || placeholder;
    body.setRangeText(before + chosen + after, start, end, "end");
    // The placeholder (or the link's address) selected, to type over.
    if (after.indexOf("(https://)") === 1) {
      var address = start + before.length + chosen.length + 2;
      body.setSelectionRange(address, address + "https://".length);
    } else if (chosen === placeholder) {
      body.setSelectionRange(start + before.length, start + before.length + chosen.length);
    }
    body.dispatchEvent(new Event("input", { bubbles: true }));
    body.focus();
  }

  var MARKS = {
    b: { label: "Bold", before: "**", after: "**", placeholder: "bold text" },
    i: { label: "Italic", before: "_", after: "_", placeholder: "italic text" },
    k: { label: "Link", before: "[", after: "](https://)", placeholder: "link text" },
  };

  function save(form) {
    var button = form.querySelector(".workflow-bar__save") || form.querySelector("input[name=_continue]");
    if (button) {
      button.click();
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("article_form");
    if (!form) {
      return;
    }
    ["id_title", "id_summary", "id_search_title", "id_meta_description"].forEach(function (id) {
      var field = document.getElementById(id);
      if (field && field.dataset.limit) {
        counter(field, function (value, out) { lengthAgainstLimit(value, out, field); });
      }
    });
    var body = document.getElementById("id_body");
    if (body) {
      counter(body, function (value, out) { wordsAndMinutes(value, out, body); });
      var bar = document.createElement("div");
      bar.className = "writing-toolbar";
      bar.setAttribute("role", "toolbar");
      bar.setAttribute("aria-label", "Formatting");
      bar.setAttribute("aria-controls", "id_body");
      Object.keys(MARKS).forEach(function (key) {
        var mark = MARKS[key];
        var button = document.createElement("button");
        button.type = "button";
        button.className = "button writing-toolbar__" + mark.label.toLowerCase();
        button.textContent = mark.label;
        button.title = mark.label + " (Ctrl+" + key.toUpperCase() + ")";
        button.setAttribute("aria-keyshortcuts", "Control+" + key.toUpperCase() + " Meta+" + key.toUpperCase());
        button.addEventListener("click", function () {
          wrap(body, mark.before, mark.after, mark.placeholder);
        });
        bar.appendChild(button);
      });
      body.insertAdjacentElement("beforebegin", bar);
      body.addEventListener("keydown", function (event) {
        if (!(event.ctrlKey || event.metaKey) || event.altKey) {
          return;
        }
        var mark = MARKS[event.key.toLowerCase()];
        if (mark) {
          event.preventDefault();
          wrap(body, mark.before, mark.after, mark.placeholder);
        }
      });
    }
    document.addEventListener("keydown", function (event) {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "s") {
        event.preventDefault();
        save(form);
      }
    });
  });
})();
