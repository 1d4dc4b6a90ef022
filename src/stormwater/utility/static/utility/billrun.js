/* Bill run pages (issue 16). Every form sends once by the shared guard in base.html (stormwater/forms.js: the
   buttons are disabled and say what is happening, data-busy-label); the services refuse a second act too.
   A static file: the CSP (web/security.py) allows no inline script. */
(function () {
  "use strict";
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
})();
