/* The workbench checklist (issue 16): each section is a form of its own; what the reviewer types or chooses is
   kept in this browser (localStorage, per file, checklist and section) as it is typed, and put back when the page
   is opened again, until that section is recorded (a finding recorded is kept on the server, with its history;
   a draft never is). A static file: the CSP (web/security.py) allows no inline script. */
(function () {
  "use strict";
  var store;
  try { store = window.localStorage; } catch (e) { return; }
  if (!store) { return; }
  // The section just recorded: its draft goes once the page says it was recorded (a refusal keeps it).
  var sent = window.sessionStorage ? window.sessionStorage.getItem("sw-checklist-sent") : null;
  if (sent) {
    window.sessionStorage.removeItem("sw-checklist-sent");
    if (document.querySelector(".messages li.success")) { store.removeItem(sent); }
  }
  document.querySelectorAll("form[data-autosave]").forEach(function (form) {
    var key = "sw-checklist:" + form.getAttribute("data-autosave");
    var status = form.querySelector("[data-autosave-status]");
    var fields = form.querySelectorAll("select[name], input[name]:not([type=hidden])");
    var saved = null;
    try { saved = JSON.parse(store.getItem(key) || "null"); } catch (e) { saved = null; }
    if (saved) {
      var n = 0;
      fields.forEach(function (f) {
        if (Object.prototype.hasOwnProperty.call(saved, f.name) && saved[f.name] !== "") { f.value = saved[f.name]; n += 1; }
      });
      if (n && status) { status.textContent = "Your unsaved entries in this section were restored (" + n + ")."; }
    }
    function keep() {
      var data = {}, any = false;
      fields.forEach(function (f) { data[f.name] = f.value; if (f.value) { any = true; } });
      if (any) { store.setItem(key, JSON.stringify(data)); } else { store.removeItem(key); }
      if (status) { status.textContent = any ? "Kept in this browser; not yet recorded." : ""; }
    }
    form.addEventListener("input", keep);
    form.addEventListener("change", keep);
    form.addEventListener("submit", function () {
      if (window.sessionStorage) { window.sessionStorage.setItem("sw-checklist-sent", key); }
    });
  });
})();
