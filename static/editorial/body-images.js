// Images in the article's text: a picture dropped or pasted onto the body, or chosen
// with the toolbar's "Insert image" (a library search, or a file from the computer), is
// uploaded to the library once the dialog has its alt text (or "decorative"), credit and
// licence, and its reference is put where the cursor was. Nothing typed is lost: a
// refused upload keeps the dialog open with its words and says what is wrong.
(function () {
  "use strict";

  var REMEMBERED = "skillo.bodyImage"; // the last credit and licence, in this browser only

  function csrfToken() {
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  function remembered() {
    try {
      return JSON.parse(window.localStorage.getItem(REMEMBERED)) || {};
    } catch (error) {
      return {};
    }
  }

  function remember(values) {
    try {
      window.localStorage.setItem(REMEMBERED, JSON.stringify(values));
    } catch (error) {
      // Private browsing: the next upload asks again.
    }
  }

  function imageFile(list) {
    for (var i = 0; list && i < list.length; i++) {
      if (list[i].type.indexOf("image/") === 0) {
        return list[i];
      }
    }
    return null;
  }

  function hasFiles(event) {
    var types = event.dataTransfer ? event.dataTransfer.types : [];
    return Array.prototype.indexOf.call(types, "Files") !== -1;
  }

  document.addEventListener("DOMContentLoaded", function () {
    var body = document.getElementById("id_body");
    var dialog = document.getElementById("body-image-dialog");
    if (!body || !dialog) {
      return;
    }
    var $ = function (selector) { return dialog.querySelector(selector); };
    var search = $("#body-image-search");
    var results = $(".body-image__results");
    var fileInput = $("#body-image-file");
    var upload = $(".body-image__upload");
    var pick = $(".body-image__pick");
    var choose = $(".body-image__choose");
    var insertButton = $(".body-image__insert");
    var errors = $(".body-image__errors");
    var alt = $("#body-image-alt");
    var decorative = $("#body-image-decorative");
    var status = document.createElement("p");
    status.className = "body-image-status help";
    status.setAttribute("aria-live", "polite");
    body.insertAdjacentElement("beforebegin", status);

    var cursor = { start: 0, end: 0 };
    var chosenFile = null;
    var searching = null;

    function say(lines) {
      errors.textContent = "";
      if (!lines.length) {
        return;
      }
      var list = document.createElement("ul");
      list.className = "errorlist";
      lines.forEach(function (line) {
        var item = document.createElement("li");
        item.textContent = line;
        list.appendChild(item);
      });
      errors.appendChild(list);
    }

    function insert(markdown) {
      var before = body.value.slice(0, cursor.start);
      var after = body.value.slice(cursor.end);
      // The picture is a paragraph of its own.
      var lead = !before || /\n\n$/.test(before) ? "" : /\n$/.test(before) ? "\n" : "\n\n";
      var tail = /^\n\n/.test(after) ? "" : /^\n/.test(after) ? "\n" : "\n\n";
      body.setRangeText(lead + markdown + tail, cursor.start, cursor.end, "end");
      body.dispatchEvent(new Event("input", { bubbles: true }));
    }

    function close() {
      if (dialog.open) {
        dialog.close();
      }
    }

    function reset() {
      chosenFile = null;
      say([]);
      if (upload) {
        upload.hidden = true;
        insertButton.hidden = true;
        insertButton.disabled = false;
        alt.value = "";
        alt.disabled = false;
        decorative.checked = false;
        $("#body-image-caption").value = "";
        fileInput.value = "";
      }
      if (pick) {
        pick.hidden = false;
        search.value = "";
        results.textContent = "";
      }
      if (choose) {
        choose.hidden = false;
      }
    }

    function showResults(found) {
      results.textContent = "";
      if (!found.length) {
        var none = document.createElement("li");
        none.className = "body-image__none";
        none.textContent = search.value.trim() ? "No picture in the library matches." : "The library is empty.";
        results.appendChild(none);
        return;
      }
      found.forEach(function (image) {
        var item = document.createElement("li");
        var button = document.createElement("button");
        button.type = "button";
        button.className = "body-image__result";
        var thumb = document.createElement("img");
        thumb.src = image.thumb;
        thumb.alt = "";
        thumb.width = 96;
        thumb.height = Math.round(96 * image.height / image.width);
        var words = document.createElement("span");
        words.textContent = image.label + " (" + image.width.toLocaleString("en") + " × " +
          image.height.toLocaleString("en") + ")";
        button.appendChild(thumb);
        button.appendChild(words);
        button.addEventListener("click", function () {
          insert(image.markdown);
          close();
          status.textContent = "Inserted “" + image.label + "” from the library.";
        });
        item.appendChild(button);
        results.appendChild(item);
      });
    }

    function lookUp() {
      var query = search.value.trim();
      var url = dialog.dataset.pickUrl + "?q=" + encodeURIComponent(query);
      var asked = (searching = url);
      fetch(url, { credentials: "same-origin" }).then(function (response) {
        if (!response.ok) {
          throw new Error(response.status);
        }
        return response.json();
      }).then(function (data) {
        if (asked === searching) {
          showResults(data.results);
        }
      }).catch(function () {
        say(["The library did not answer; try again in a moment."]);
      });
    }

    function showUpload(file) {
      reset();
      chosenFile = file;
      if (pick) {
        pick.hidden = true;
      }
      choose.hidden = true;
      upload.hidden = false;
      insertButton.hidden = false;
      // A data: address: the site's CSP allows those for pictures, not blob: ones.
      var reader = new FileReader();
      var preview = $(".body-image__preview");
      if (preview) {
        preview.remove();
      }
      preview = document.createElement("img");
      preview.className = "body-image__preview";
      preview.alt = "";
      $(".body-image__file").prepend(preview);
      reader.onload = function () {
        if (chosenFile === file) {
          preview.src = reader.result;
        }
      };
      reader.readAsDataURL(file);
      $(".body-image__name").textContent = file.name || "Pasted picture";
      var last = remembered();
      $("#body-image-credit").value = last.credit || "";
      $("#body-image-licence").value = last.licence || "";
      alt.focus();
    }

    function open(file) {
      cursor = { start: body.selectionStart, end: body.selectionEnd };
      reset();
      if (!dialog.open) {
        dialog.showModal();
      }
      if (file) {
        showUpload(file);
      } else if (search) {
        search.focus();
        lookUp();
      } else {
        fileInput.focus();
      }
    }

    var sending = 0; // which upload is running, if any: a closed dialog forgets it

    function send() {
      if (sending || !chosenFile) {
        return; // Enter again while it uploads
      }
      var mine = (sending = Date.now());
      var credit = $("#body-image-credit").value.trim();
      var licence = $("#body-image-licence").value;
      var data = new FormData();
      data.append("upload", chosenFile, chosenFile.name || "pasted-picture.png");
      data.append("alt_text", decorative.checked ? "" : alt.value.trim());
      if (decorative.checked) {
        data.append("decorative", "on");
      }
      data.append("caption", $("#body-image-caption").value.trim());
      data.append("credit", credit);
      data.append("licence", licence);
      insertButton.disabled = true;
      insertButton.textContent = "Uploading…";
      say([]);
      fetch(dialog.dataset.uploadUrl, {
        method: "POST",
        body: data,
        credentials: "same-origin",
        headers: { "X-CSRFToken": csrfToken() },
      }).then(function (response) {
        return response.json().then(function (answer) {
          return { ok: response.ok, answer: answer };
        });
      }).then(function (result) {
        if (sending !== mine) {
          return; // the dialog was closed meanwhile: the text has moved on
        }
        if (!result.ok) {
          say(result.answer.errors || ["The upload was refused."]);
          return;
        }
        remember({ credit: credit, licence: licence });
        insert(result.answer.markdown);
        close();
        status.textContent = result.answer.existing
          ? "That picture was already in the library: inserted “" + result.answer.label + "”."
          : "Uploaded and inserted “" + result.answer.label + "”.";
      }).catch(function () {
        if (sending === mine) {
          say(["The upload did not reach the server. Your picture and words are still here: try again."]);
        }
      }).then(function () {
        if (sending === mine) {
          sending = 0;
        }
        insertButton.disabled = false;
        insertButton.textContent = "Upload and insert";
      });
    }

    var toolbar = document.querySelector(".writing-toolbar");
    var opener = document.createElement("button");
    opener.type = "button";
    opener.className = "button writing-toolbar__image";
    opener.textContent = "Insert image";
    opener.setAttribute("aria-haspopup", "dialog");
    opener.addEventListener("click", function () { open(null); });
    (toolbar || body.parentNode).insertBefore(opener, toolbar ? null : body);

    dialog.addEventListener("close", function () {
      sending = 0;
      reset();
      body.focus();
      body.setSelectionRange(body.selectionStart, body.selectionEnd);
    });
    $(".body-image__cancel").addEventListener("click", close);
    if (search) {
      var timer = null;
      search.addEventListener("input", function () {
        window.clearTimeout(timer);
        timer = window.setTimeout(lookUp, 250);
      });
      search.addEventListener("keydown", function (event) {
        if (event.key === "Enter") {
          // Inside the article's form: Enter must search, not save the article.
          event.preventDefault();
          window.clearTimeout(timer);
          lookUp();
        }
      });
    }
    if (upload) {
      fileInput.addEventListener("change", function () {
        var file = imageFile(fileInput.files);
        if (file) {
          showUpload(file);
        } else if (fileInput.files.length) {
          say(["That file is not a picture."]);
        }
      });
      decorative.addEventListener("change", function () {
        alt.disabled = decorative.checked;
      });
      insertButton.addEventListener("click", send);
      upload.addEventListener("keydown", function (event) {
        if (event.key === "Enter" && event.target.tagName !== "TEXTAREA") {
          event.preventDefault();
          send();
        }
      });
    }

    body.addEventListener("dragover", function (event) {
      if (hasFiles(event)) {
        event.preventDefault();
        body.classList.add("body-image-target");
      }
    });
    body.addEventListener("dragleave", function () {
      body.classList.remove("body-image-target");
    });
    body.addEventListener("drop", function (event) {
      body.classList.remove("body-image-target");
      if (!hasFiles(event)) {
        return;
      }
      // A file dropped on a page opens it in the tab, leaving the form: never.
      event.preventDefault();
      var file = imageFile(event.dataTransfer.files);
      if (!file || !upload) {
        status.textContent = upload ? "Only pictures can be dropped onto the text." :
          "You may not add pictures to the library; ask an editor.";
        return;
      }
      body.focus();
      open(file);
    });
    body.addEventListener("paste", function (event) {
      var file = imageFile(event.clipboardData && event.clipboardData.files);
      if (file && upload) {
        event.preventDefault();
        open(file);
      }
    });
  });
})();
