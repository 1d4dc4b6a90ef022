/* The one script of every page (issue 16), a static file under the Content-Security-Policy ('self'; no inline
   script). Everything works without it; it only makes two things better:
   1. The main menu on a phone. base.html renders the menu as an open <details> disclosure (so that it works
      without JavaScript); this file, loaded right after it (before the page is drawn), closes it on a narrow
      screen and opens it again when the window becomes wide (there the menu is a sidebar, its button hidden).
      Escape closes it on a phone.
   2. Boxes that scroll sideways (a wide table in .table-scroll on a phone): a box that does scroll and has
      nothing focusable inside is made focusable and named after its caption or heading, so that a keyboard can
      scroll it too (WCAG 2.1.1; axe "scrollable-region-focusable"). Checked again when the window is resized. */
(function () {
  "use strict";
  var menu = document.getElementById("menu");
  var narrow = window.matchMedia ? window.matchMedia("(max-width: 63.99rem)") : null;
  if (menu && narrow) {
    var fit = function () { menu.open = !narrow.matches; };
    fit();
    if (narrow.addEventListener) { narrow.addEventListener("change", fit); } else if (narrow.addListener) { narrow.addListener(fit); }
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && narrow.matches && menu.open) {
        menu.open = false;
        menu.querySelector("summary").focus();
      }
    });
  }

  var FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";
  function nameOf(box) {
    var cap = box.querySelector("caption");
    if (cap && cap.textContent.trim()) { return cap.textContent.trim(); }
    var el = box;
    while (el && el !== document.body) {
      var h = el.previousElementSibling;
      while (h) {
        if (/^H[1-6]$/.test(h.tagName)) { return h.textContent.trim(); }
        h = h.previousElementSibling;
      }
      el = el.parentElement;
      if (el && el.querySelector(":scope > h2, :scope > h3")) { return el.querySelector(":scope > h2, :scope > h3").textContent.trim(); }
    }
    return "Table";
  }
  function scrollable() {
    var boxes = document.querySelectorAll(".table-scroll, .scroll, .job-table, .card, pre");
    Array.prototype.forEach.call(boxes, function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1;
      var mine = box.getAttribute("data-scroll-focus") === "1";
      if (scrolls && !mine && !box.hasAttribute("tabindex") && !box.querySelector(FOCUSABLE)) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("data-scroll-focus", "1");
        if (box.tagName === "DIV" && !box.hasAttribute("role")) {
          box.setAttribute("role", "region");
          box.setAttribute("aria-label", nameOf(box) + " (scrolls sideways)");
        }
      } else if (!scrolls && mine) {
        box.removeAttribute("tabindex");
        box.removeAttribute("data-scroll-focus");
        if (box.getAttribute("role") === "region") { box.removeAttribute("role"); box.removeAttribute("aria-label"); }
      }
    });
  }
  var pending = null;
  function later() { if (pending) { clearTimeout(pending); } pending = setTimeout(scrollable, 150); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", scrollable); } else { scrollable(); }
  window.addEventListener("resize", later);
})();
