/* Live job cards: every [data-job-poll] element polls its /api/jobs/<id>/ URL until the job is finished and
   updates state, "n of N", the progress bar, error, file link, result and log (stormwater.jobs, docs/jobs.md).
   A static file (script-src 'self'), no inline code: the CSP of web/security.py applies. */
(function () {
  "use strict";
  var EVERY_MS = 1500;

  function field(card, name) {
    var own = card.querySelector('[data-job-field="' + name + '"]');
    return own || (card.hasAttribute("data-job-page") ? document.querySelector('[data-job-field="' + name + '"]') : null);
  }

  function text(el, value) { if (el && el.textContent !== value) { el.textContent = value; } }

  function show(el, on) { if (el) { el.hidden = !on; } }

  function render(card, job) {
    var state = field(card, "state_label");
    if (state) {
      text(state, job.state_label);
      state.className = "badge job-state " + job.state;
    }
    text(field(card, "counts"), job.total !== null ? job.done + " of " + job.total : (job.done ? job.done + " done" : ""));
    var bar = field(card, "progress");
    if (bar) {
      if (job.percent !== null) { bar.value = job.percent; bar.textContent = job.percent + "%"; }
      else { bar.removeAttribute("value"); }
    }
    var err = field(card, "error");
    if (err) { text(err, job.error || ""); show(err, !!job.error); }
    var file = field(card, "file");
    if (file) {
      show(file, !!job.file_url);
      var a = file.querySelector("a");
      if (a && job.file_url) { a.href = job.file_url; }
    }
    show(field(card, "waiting"), job.state === "queued");
    var result = document.querySelector('[data-job-field="result"]');
    if (result && job.result && card.hasAttribute("data-job-page")) {
      var dl = document.createElement("dl");
      dl.className = "facts";
      Object.keys(job.result).forEach(function (k) {
        var dt = document.createElement("dt"), dd = document.createElement("dd"), v = job.result[k];
        dt.textContent = k;
        dd.textContent = typeof v === "object" ? JSON.stringify(v) : String(v);
        dl.appendChild(dt);
        dl.appendChild(dd);
      });
      result.replaceChildren(dl);
    }
    var log = document.querySelector('[data-job-field="log"]');
    if (log && card.hasAttribute("data-job-page") && job.log.length) {
      var items = job.log.map(function (ln) {
        var li = document.createElement("li"), t = document.createElement("time");
        t.dateTime = ln.at;
        t.textContent = ln.at.substring(11, 19);
        li.appendChild(t);
        li.appendChild(document.createTextNode(" " + ln.line));
        return li;
      });
      log.replaceChildren.apply(log, items);
    }
  }

  function poll(card) {
    var url = card.getAttribute("data-job-poll");
    fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (job) {
        if (!job) { return; }
        render(card, job);
        if (job.finished) { card.setAttribute("data-job-finished", "1"); }
        else { window.setTimeout(function () { poll(card); }, EVERY_MS); }
      })
      .catch(function () { window.setTimeout(function () { poll(card); }, EVERY_MS * 4); });
  }

  function start() {
    var cards = document.querySelectorAll("[data-job-poll]");
    if (cards.length === 1 && document.querySelector('[data-job-field="log"]')) {
      cards[0].setAttribute("data-job-page", "");
    }
    cards.forEach(function (card) {
      if (card.getAttribute("data-job-finished") !== "1") { poll(card); }
    });
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
}());
