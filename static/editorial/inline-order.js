// Order the rows of the article's inline tables (sources, related links, authors) by
// dragging a row's handle, or with its "Move up" / "Move down" buttons (keyboard and
// screen readers); the hidden-in-plain-sight position numbers follow the rows' order, so
// the server keeps its own rule (order by position). No library: django-admin-sortable2
// 2.3.1 ships templates for Django up to 6.0 only.
(function () {
  "use strict";

  function rowsOf(tbody) {
    return Array.prototype.filter.call(tbody.querySelectorAll("tr.form-row"), function (row) {
      return !row.classList.contains("empty-form");
    });
  }

  function filled(row) {
    // A blank extra row must stay unchanged, or the admin would ask to fill it in.
    return Array.prototype.some.call(
      row.querySelectorAll("td:not(.field-position):not(.delete) input:not([type=hidden]):not([type=checkbox]), td select"),
      function (field) {
        return field.value !== "";
      }
    );
  }

  function renumber(tbody) {
    var next = 0;
    rowsOf(tbody).forEach(function (row) {
      var position = row.querySelector("td.field-position input");
      if (position && filled(row)) {
        position.value = next;
        next += 1;
      }
    });
  }

  function button(label, text) {
    var control = document.createElement("button");
    control.type = "button";
    control.className = "inline-order__move";
    control.setAttribute("aria-label", label);
    control.textContent = text;
    return control;
  }

  function equip(row, tbody) {
    var cell = row.querySelector("td.field-position");
    if (!cell || cell.querySelector(".inline-order__handle")) {
      return;
    }
    var handle = document.createElement("span");
    handle.className = "inline-order__handle";
    handle.textContent = "⠿";
    handle.title = "Drag to move";
    handle.setAttribute("aria-hidden", "true");
    var up = button("Move up", "▲");
    var down = button("Move down", "▼");
    cell.insertBefore(handle, cell.firstChild);
    cell.appendChild(up);
    cell.appendChild(down);
    row.draggable = true;
    up.addEventListener("click", function () {
      var rows = rowsOf(tbody);
      var index = rows.indexOf(row);
      if (index > 0) {
        tbody.insertBefore(row, rows[index - 1]);
        renumber(tbody);
        up.focus();
      }
    });
    down.addEventListener("click", function () {
      var rows = rowsOf(tbody);
      var index = rows.indexOf(row);
      if (index < rows.length - 1) {
        tbody.insertBefore(rows[index + 1], row);
        renumber(tbody);
        down.focus();
      }
    });
    row.addEventListener("dragstart", function (event) {
      tbody.dragged = row;
      row.classList.add("inline-order__dragging");
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", "");
    });
    row.addEventListener("dragend", function () {
      row.classList.remove("inline-order__dragging");
      tbody.dragged = null;
      renumber(tbody);
    });
    row.addEventListener("dragover", function (event) {
      var dragged = tbody.dragged;
      if (!dragged || dragged === row) {
        return;
      }
      event.preventDefault();
      var box = row.getBoundingClientRect();
      var after = event.clientY > box.top + box.height / 2;
      tbody.insertBefore(dragged, after ? row.nextSibling : row);
    });
    row.addEventListener("drop", function (event) {
      event.preventDefault();
      renumber(tbody);
    });
  }

  function setUp() {
    document.querySelectorAll(".inline-group .tabular tbody").forEach(function (tbody) {
      if (!tbody.querySelector("td.field-position")) {
        return;
      }
      rowsOf(tbody).forEach(function (row) {
        equip(row, tbody);
      });
    });
  }

  document.addEventListener("DOMContentLoaded", setUp);
  // Rows the admin adds ("Add another source") get their handle and buttons too.
  document.addEventListener("formset:added", function (event) {
    var row = event.target;
    var tbody = row.closest("tbody");
    if (tbody && tbody.closest(".inline-group .tabular")) {
      equip(row, tbody);
    }
  });
})();
