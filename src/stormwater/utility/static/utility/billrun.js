/* Bill run pages (issue 16): every form marked data-submit-once sends once. On submit its buttons are disabled
   and say what is happening, so a double click or an impatient second click cannot approve, void or prepare
   twice (the services refuse a second act too; this spares the person the error). A static file: the CSP
   (web/security.py) allows no inline script. */
(function () {
  "use strict";
  function guard(form) {
    form.addEventListener("submit", function (ev) {
      if (form.getAttribute("data-submitting") === "1") { ev.preventDefault(); return; }
      form.setAttribute("data-submitting", "1");
      form.setAttribute("aria-busy", "true");
      var buttons = form.querySelectorAll("button[type=submit], button:not([type])");
      // Disable after the submission has started: a disabled button's own click would not submit.
      window.setTimeout(function () {
        buttons.forEach(function (b) {
          b.disabled = true;
          if (b.getAttribute("data-busy-label")) { b.textContent = b.getAttribute("data-busy-label"); }
        });
      }, 0);
    });
  }
  document.querySelectorAll("form[data-submit-once]").forEach(guard);

  // A proof being prepared (issue 15): the job card below follows the worker (jobs/job.js); when it finishes,
  // say so and offer the result (a link, not a reload: the page changes only when the person asks).
  var ready = document.querySelector("[data-proof-ready]");
  var cards = document.querySelectorAll("[data-proof-jobs] [data-job-poll][data-job-finished='0']");
  if (ready && cards.length && "MutationObserver" in window) {
    var seen = new window.MutationObserver(function () {
      var done = Array.prototype.some.call(cards, function (c) { return c.getAttribute("data-job-finished") === "1"; });
      if (done) { ready.hidden = false; seen.disconnect(); }
    });
    cards.forEach(function (c) { seen.observe(c, { attributes: true, attributeFilter: ["data-job-finished"] }); });
  }
  // A page shown again from the back/forward cache: its forms can be used again.
  window.addEventListener("pageshow", function (ev) {
    if (!ev.persisted) { return; }
    document.querySelectorAll("form[data-submit-once]").forEach(function (form) {
      form.removeAttribute("data-submitting");
      form.removeAttribute("aria-busy");
      form.querySelectorAll("button").forEach(function (b) { b.disabled = false; });
    });
  });
})();
