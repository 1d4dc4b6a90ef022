/* Every form that posts sends once (issue 16 "every submit button guards against double submission"): on submit
   the form is marked busy and its buttons are disabled (after the submission has started: a disabled button's
   own click would not submit, nor send its name), so a double click or an impatient second click cannot post
   twice. A button may say what is happening (data-busy-label). Loaded by base.html on every page; a static
   file, as the CSP (web/security.py) allows no inline script. The server refuses a second post of an
   irreversible act too (web/once.py), for whatever gets past this script.
   A form that stays on the page (a download) is usable again after a few seconds; a form marked
   data-submit-many is not guarded, nor a button that opens its answer in another tab (formtarget: a preview). */
(function () {
  "use strict";
  var AGAIN_MS = 8000;
  function release(form) {
    form.removeAttribute("data-submitting");
    form.removeAttribute("aria-busy");
    form.querySelectorAll("button[data-busy-disabled]").forEach(function (b) {
      b.disabled = false;
      b.removeAttribute("data-busy-disabled");
      if (b.hasAttribute("data-idle-label")) { b.textContent = b.getAttribute("data-idle-label"); }
    });
  }
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement) || (form.getAttribute("method") || "get").toLowerCase() !== "post" ||
        form.hasAttribute("data-submit-many")) { return; }
    // A button that opens its answer in another tab (a preview) leaves this page as it is.
    if (ev.submitter && ev.submitter.hasAttribute("formtarget")) { return; }
    if (form.getAttribute("data-submitting") === "1") { ev.preventDefault(); return; }
    if (ev.defaultPrevented) { return; }
    form.setAttribute("data-submitting", "1");
    form.setAttribute("aria-busy", "true");
    window.setTimeout(function () {
      form.querySelectorAll("button[type=submit], button:not([type])").forEach(function (b) {
        if (b.disabled) { return; }
        b.disabled = true;
        b.setAttribute("data-busy-disabled", "1");
        if (b.getAttribute("data-busy-label")) {
          b.setAttribute("data-idle-label", b.textContent);
          b.textContent = b.getAttribute("data-busy-label");
        }
      });
    }, 0);
    window.setTimeout(function () { release(form); }, AGAIN_MS);
  });
  // A refused form shown again in its page (web/refill.py): its error summary takes the focus, as GOV.UK's does, so
  // the page opens where the problem is, however far down the form sits.
  function focusRefused() {
    var summary = document.querySelector(".error-summary[data-refused]");
    if (summary) { summary.scrollIntoView({block: "start"}); summary.focus({preventScroll: true}); }
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", focusRefused); }
  else { focusRefused(); }
  // A page shown again from the back/forward cache: its forms can be used again.
  window.addEventListener("pageshow", function (ev) {
    if (ev.persisted) { document.querySelectorAll("form[data-submitting]").forEach(release); }
  });
})();
