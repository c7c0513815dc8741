// The calendar's drag and drop: a scheduled story dropped on another day is moved there
// by its own "Move…" form (the keyboard's way, and the one the server knows), keeping
// its time of day.
(function () {
  "use strict";

  document.addEventListener("DOMContentLoaded", function () {
    var dragged = null;
    document.querySelectorAll(".calendar__story[draggable=true]").forEach(function (story) {
      story.addEventListener("dragstart", function (event) {
        dragged = story;
        story.classList.add("calendar__dragging");
        event.dataTransfer.effectAllowed = "move";
        event.dataTransfer.setData("text/plain", story.dataset.story);
      });
      story.addEventListener("dragend", function () {
        story.classList.remove("calendar__dragging");
        dragged = null;
      });
    });
    document.querySelectorAll(".calendar__day[data-day]").forEach(function (day) {
      day.addEventListener("dragover", function (event) {
        if (dragged) {
          event.preventDefault();
          event.dataTransfer.dropEffect = "move";
          day.classList.add("calendar__day--target");
        }
      });
      day.addEventListener("dragleave", function () {
        day.classList.remove("calendar__day--target");
      });
      day.addEventListener("drop", function (event) {
        day.classList.remove("calendar__day--target");
        if (!dragged) {
          return;
        }
        event.preventDefault();
        var form = document.getElementById("move-" + dragged.dataset.story);
        if (!form || dragged.closest(".calendar__day") === day) {
          return;
        }
        form.querySelector("input[name=day]").value = day.dataset.day;
        form.requestSubmit();
      });
    });
  });
})();
