// The image form's focal point: click (or use the arrow keys on) the picture to set the
// point that crops keep in frame; the two number fields stay the source of truth.
(function () {
  "use strict";

  function setUp(picker) {
    var x = document.getElementById(picker.dataset.focalX);
    var y = document.getElementById(picker.dataset.focalY);
    var marker = picker.querySelector(".focal-picker__marker");
    if (!x || !y || !marker) {
      return;
    }
    picker.tabIndex = 0;
    picker.setAttribute("role", "button");
    picker.setAttribute("aria-label", "Focal point: click the picture, or move it with the arrow keys");

    function clamp(value) {
      return Math.min(1, Math.max(0, Math.round(value * 100) / 100));
    }

    function show() {
      marker.style.left = clamp(parseFloat(x.value) || 0) * 100 + "%";
      marker.style.top = clamp(parseFloat(y.value) || 0) * 100 + "%";
    }

    function set(fx, fy) {
      x.value = clamp(fx).toFixed(2);
      y.value = clamp(fy).toFixed(2);
      show();
    }

    picker.addEventListener("click", function (event) {
      var box = picker.getBoundingClientRect();
      set((event.clientX - box.left) / box.width, (event.clientY - box.top) / box.height);
    });
    picker.addEventListener("keydown", function (event) {
      var step = event.shiftKey ? 0.1 : 0.02;
      var moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
      var move = moves[event.key];
      if (move) {
        event.preventDefault();
        set((parseFloat(x.value) || 0) + move[0], (parseFloat(y.value) || 0) + move[1]);
      }
    });
    x.addEventListener("input", show);
    y.addEventListener("input", show);
    show();
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".focal-picker").forEach(setUp);
  });
})();
