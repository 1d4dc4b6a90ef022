/* The inspector's pages on a phone (issue 18), progressive enhancement over plain server-rendered forms:

   - registers the service worker (/field/sw.js, scope /field/) and asks it to keep today's pages and report forms
     on the phone, so they open without a connection;
   - the report form: shows only the sections of the chosen type, previews photos, takes a signature drawn on the
     screen (the typed-name attestation stays for keyboards and when there is no pointer);
   - the outbox: a report is saved in the browser (IndexedDB, with its photos and signature as files) before it is
     sent, and sent when there is a connection — once: each report carries a key made here, and the server files a
     key only once (Inspection.client_key is unique). Refusals (400), conflicts (409: the file changed since the
     form was opened) and an expired sign-in (401/403) are kept and shown; nothing is dropped without the person
     saying so.
   No inline script, no eval, nothing from another origin (CSP 'self'). Every text from data goes in with
   textContent. */
(function () {
  "use strict";

  var script = document.currentScript;
  var CFG = {
    sw: script ? script.getAttribute("data-sw") : "/field/sw.js",
    scope: script ? script.getAttribute("data-scope") : "/field/",
    outboxUrl: script ? script.getAttribute("data-outbox-url") : "/field/outbox/",
    loginUrl: script ? script.getAttribute("data-login-url") : "/login/",
    user: script ? script.getAttribute("data-user") : ""
  };
  var DB_NAME = "stormwater-field", DB_VERSION = 1;

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text != null) { e.textContent = text; }
    return e;
  }
  function say(msg) {
    var s = $("#offline-status") || $("#form-status");
    if (s) { s.textContent = msg; }
  }
  function newKey() {
    if (window.crypto && crypto.randomUUID) { return crypto.randomUUID(); }
    var a = new Uint8Array(16);
    crypto.getRandomValues(a);
    return Array.prototype.map.call(a, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }
  function csrfToken() {
    var m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (m) { return decodeURIComponent(m[1]); }
    var i = $("input[name=csrfmiddlewaretoken]");
    return i ? i.value : "";
  }

  /* ---------------------------------------------------------------- IndexedDB: the outbox and what was sent */
  var dbp = null;
  function db() {
    if (!("indexedDB" in window)) { return Promise.reject(new Error("This browser cannot keep reports offline.")); }
    if (!dbp) {
      dbp = new Promise(function (resolve, reject) {
        var rq = indexedDB.open(DB_NAME, DB_VERSION);
        rq.onupgradeneeded = function () {
          var d = rq.result;
          if (!d.objectStoreNames.contains("outbox")) { d.createObjectStore("outbox", {keyPath: "key"}); }
          if (!d.objectStoreNames.contains("sent")) { d.createObjectStore("sent", {keyPath: "key"}); }
        };
        rq.onsuccess = function () { resolve(rq.result); };
        rq.onerror = function () { reject(rq.error); };
      });
    }
    return dbp;
  }
  function tx(store, mode, fn) {
    return db().then(function (d) {
      return new Promise(function (resolve, reject) {
        var t = d.transaction(store, mode), out;
        t.oncomplete = function () { resolve(out); };
        t.onerror = function () { reject(t.error); };
        t.onabort = function () { reject(t.error || new Error("storage aborted")); };
        out = fn(t.objectStore(store));
      });
    });
  }
  function getAll(store) {
    return tx(store, "readonly", function (s) {
      var r = {items: []};
      s.openCursor().onsuccess = function (e) {
        var c = e.target.result;
        if (c) { r.items.push(c.value); c.continue(); }
      };
      return r;
    }).then(function (r) { return r.items.sort(function (a, b) { return a.created < b.created ? -1 : 1; }); });
  }
  function put(store, rec) { return tx(store, "readwrite", function (s) { s.put(rec); }); }
  function del(store, key) { return tx(store, "readwrite", function (s) { s.delete(key); }); }
  function getOne(store, key) {
    return tx(store, "readonly", function (s) {
      var r = {};
      s.get(key).onsuccess = function (e) { r.value = e.target.result; };
      return r;
    }).then(function (r) { return r.value; });
  }

  /* ---------------------------------------------------------------- sending, once */
  var flushing = null;
  function flush() {
    if (flushing) { return flushing; }
    flushing = getAll("outbox").then(function (items) {
      var stale = Date.now() - 120000;  // "sending" when the page was closed mid-way: try again
      var mine = items.filter(function (r) {
        return r.user === CFG.user && (r.status === "waiting" || r.status === "error" ||
                                       (r.status === "sending" && (r.sendingSince || 0) < stale));
      });
      return mine.reduce(function (p, rec) { return p.then(function () { return send(rec); }); }, Promise.resolve());
    }).catch(function (e) { say(String(e.message || e)); })
      .then(function () { flushing = null; return render(); });
    return flushing;
  }

  function send(rec) {
    if (!navigator.onLine) { return Promise.resolve(); }
    var fd = new FormData();
    rec.fields.forEach(function (f) { fd.append(f[0], f[1]); });
    rec.files.forEach(function (f) { fd.append(f[0], f[1], f[2]); });
    if (rec.force) { fd.set("force", "1"); }
    rec.status = "sending";
    rec.sendingSince = Date.now();
    return put("outbox", rec).then(function () {
      return fetch(rec.endpoint, {method: "POST", body: fd, credentials: "same-origin",
                                  headers: {"X-CSRFToken": csrfToken(), "Accept": "application/json"}});
    }).then(function (resp) {
      return resp.text().then(function (text) {
        var body;
        try { body = JSON.parse(text); } catch (e) { body = {errors: text && text.length < 500 ? [text] : []}; }
        return answer(rec, resp.status, body);
      });
    }, function () {
      rec.status = "waiting";  // no connection after all: it stays, and goes when the connection returns
      rec.message = "Waiting for a connection.";
      return put("outbox", rec);
    });
  }

  function answer(rec, code, body) {
    if (code === 200 || code === 201) {
      var sent = {key: rec.key, user: rec.user, number: rec.number, site: rec.site, title: rec.title,
                  created: rec.created, sent: new Date().toISOString(), url: body.url, pdf: body.pdf,
                  message: body.message || "Filed."};
      return put("sent", sent).then(function () { return del("outbox", rec.key); }).then(function () {
        document.dispatchEvent(new CustomEvent("field:sent", {detail: sent}));
      });
    }
    if (code === 409) { rec.status = "conflict"; rec.conflicts = body.conflicts || []; rec.message = "The file changed."; }
    else if (code === 400) { rec.status = "refused"; rec.errors = body.errors || []; rec.message = "Refused."; }
    else if (code === 401 || code === 403) {
      rec.status = "signin";
      rec.message = "Sign in again to send it (your session ended); it stays here until then.";
    } else if (code === 404) { rec.status = "refused"; rec.errors = [body.error || "The construction file is not reachable."]; }
    else { rec.status = "error"; rec.message = "The office system answered " + code + "; it will be tried again."; }
    return put("outbox", rec).then(function () {
      document.dispatchEvent(new CustomEvent("field:answer", {detail: rec}));
    });
  }

  /* ---------------------------------------------------------------- the outbox as the person sees it */
  function describe(rec) {
    var when = (rec.fields.filter(function (f) { return f[0] === "inspected_at"; })[0] || [])[1] || "";
    return (rec.title || "Report") + " · " + (rec.site || rec.number) + (when ? " · inspected " + when.replace("T", " ") : "");
  }
  var STATUS_TEXT = {waiting: "Waiting to be sent", sending: "Sending…", error: "Not sent yet",
                     refused: "Refused: needs your changes", conflict: "The file changed: check before sending",
                     signin: "Sign in again to send"};

  function itemFor(rec, full) {
    var li = el("li", {"class": "outbox-item status-" + rec.status, "data-key": rec.key});
    li.appendChild(el("strong", {}, describe(rec)));
    li.appendChild(el("span", {"class": "badge"}, rec.user !== CFG.user ? "Written by " + rec.user + ": sign in as them to send"
                                                                        : (STATUS_TEXT[rec.status] || rec.status)));
    if (rec.message && rec.status !== "waiting") { li.appendChild(el("p", {}, rec.message)); }
    var list = (rec.status === "conflict" ? rec.conflicts : rec.status === "refused" ? rec.errors : []) || [];
    if (list.length) {
      var ul = el("ul", {});
      list.forEach(function (t) { ul.appendChild(el("li", {}, t)); });
      li.appendChild(ul);
    }
    var actions = el("p", {"class": "actions"});
    if (rec.user === CFG.user) {
      if (rec.status === "conflict") { actions.appendChild(button("Send it anyway", function () { rec.force = true; rec.status = "waiting"; return put("outbox", rec).then(flush); })); }
      if (rec.status === "refused" || rec.status === "conflict") {
        actions.appendChild(el("a", {"class": "button secondary", href: rec.formUrl + (rec.formUrl.indexOf("?") < 0 ? "?" : "&") + "draft=" + encodeURIComponent(rec.key)}, "Open it to change it"));
      }
      if (rec.status === "signin") {
        actions.appendChild(el("a", {"class": "button", href: CFG.loginUrl + "?next=" + encodeURIComponent(CFG.outboxUrl)}, "Sign in"));
      }
      if (rec.status === "waiting" || rec.status === "error" || rec.status === "signin") {
        actions.appendChild(button("Send now", function () { rec.status = "waiting"; return put("outbox", rec).then(flush); }));
      }
    }
    if (full) {
      actions.appendChild(button("Discard it", function () {
        if (window.confirm("Discard this report? It has not reached the office and will be lost.")) {
          return del("outbox", rec.key).then(render);
        }
      }, "secondary"));
    }
    li.appendChild(actions);
    return li;
  }
  function button(text, fn, cls) {
    var b = el("button", {type: "button", "class": cls || "primary"}, text);
    b.addEventListener("click", function () { Promise.resolve(fn()).then(render); });
    return b;
  }

  function render() {
    return Promise.all([getAll("outbox"), getAll("sent")]).then(function (r) {
      var items = r[0], sent = r[1].filter(function (s) { return s.user === CFG.user; }).slice(-10).reverse();
      $all("[data-outbox-count]").forEach(function (c) { c.textContent = items.length ? "(" + items.length + ")" : ""; });
      var panel = $("#outbox"), page = $("[data-outbox-page]");
      if (panel && !page) {
        panel.textContent = "";
        panel.hidden = items.length === 0;
        if (items.length) {
          panel.appendChild(el("h2", {}, items.length === 1 ? "1 report waiting to be sent" : items.length + " reports waiting to be sent"));
          var ul = el("ul", {"class": "outbox-list"});
          items.forEach(function (rec) { ul.appendChild(itemFor(rec, false)); });
          panel.appendChild(ul);
        }
      }
      if (page) {
        page.textContent = "";
        page.appendChild(el("h2", {}, items.length ? "Waiting (" + items.length + ")" : "Nothing is waiting to be sent."));
        if (items.length) {
          var ul2 = el("ul", {"class": "outbox-list"});
          items.forEach(function (rec) { ul2.appendChild(itemFor(rec, true)); });
          page.appendChild(ul2);
        }
        if (sent.length) {
          page.appendChild(el("h2", {}, "Sent from this phone"));
          var ul3 = el("ul", {"class": "outbox-list"});
          sent.forEach(function (s) {
            var li = el("li", {"class": "outbox-item status-sent"});
            li.appendChild(el("strong", {}, s.message));
            li.appendChild(document.createTextNode(" "));
            if (s.url) { li.appendChild(el("a", {href: s.url}, "The report")); }
            if (s.pdf) { li.appendChild(document.createTextNode(" · ")); li.appendChild(el("a", {href: s.pdf}, "PDF")); }
            ul3.appendChild(li);
          });
          page.appendChild(ul3);
        }
      }
    }).catch(function () { /* no IndexedDB: nothing to show */ });
  }

  /* ---------------------------------------------------------------- the report form */
  function kindSections(form) {
    var kind = form.elements.kind;
    if (!kind) { return; }
    function apply() {
      $all("fieldset[data-kinds]", form).forEach(function (fs) {
        var on = fs.getAttribute("data-kinds").split(" ").indexOf(kind.value) >= 0;
        fs.hidden = !on;
        fs.disabled = !on;
      });
    }
    kind.addEventListener("change", apply);
    apply();
  }

  function previews(form) {
    $all("input[type=file]", form).forEach(function (input) {
      var box = $("[data-previews='" + input.id + "']", form);
      if (!box) { return; }
      input.addEventListener("change", function () { drawPreviews(input, box); });
    });
  }
  function drawPreviews(input, box) {
    box.textContent = "";
    Array.prototype.forEach.call(input.files || [], function (file, n) {
      var fig = el("figure", {"class": "preview"});
      var c = el("canvas", {width: "120", height: "90", role: "img", "aria-label": "Photo " + file.name});
      fig.appendChild(c);
      fig.appendChild(el("figcaption", {}, file.name));
      // its caption (issue 30): posted as <input>-caption, one per photo in the photos' order
      var id = input.id + "-caption-" + n;
      fig.appendChild(el("label", {"for": id}, "Caption"));
      fig.appendChild(el("input", {id: id, name: input.name + "-caption", maxlength: "300", "class": "caption"}));
      box.appendChild(fig);
      if (window.createImageBitmap) {
        createImageBitmap(file).then(function (bmp) {
          var r = Math.min(120 / bmp.width, 90 / bmp.height), ctx = c.getContext("2d");
          ctx.drawImage(bmp, (120 - bmp.width * r) / 2, (90 - bmp.height * r) / 2, bmp.width * r, bmp.height * r);
        }).catch(function () {});
      }
    });
  }

  /* ---------------------------------------------------------------- photos before they are kept (issue 30)
     On a weak connection (the phone says save-data, or 2G/3G, or there is none) a photo larger than PHOTO_MAX_PX is
     made smaller here, before it is kept and sent; an HEIC photo is made a JPEG where this browser can read HEIC
     (Safari), else refused here by name. The camera's EXIF (time, GPS position: what the office reads from the
     photo) is copied into the new JPEG, its orientation set upright because the pixels now are. */
  var PHOTO_MAX_PX = 2048, PHOTO_QUALITY = 0.85, FULL_PX = 16384;
  var ERR_HEIC = "“{name}” is an HEIC photo and this browser cannot convert it: take the photo with the form's " +
                 "camera button, or set the camera to “Most Compatible”.";

  function weakConnection() {
    var c = navigator.connection || navigator.mozConnection || navigator.webkitConnection;
    if (!navigator.onLine) { return true; }
    return !!c && (!!c.saveData || ["slow-2g", "2g", "3g"].indexOf(c.effectiveType) >= 0);
  }
  function ascii(b, at, n) { return String.fromCharCode.apply(null, Array.prototype.slice.call(b, at, at + n)); }
  function heic(file, b) {
    return /^image\/(heic|heif)/i.test(file.type || "") || /\.(heic|heif)$/i.test(file.name || "") ||
           (ascii(b, 4, 4) === "ftyp" && /^(heic|heix|heim|heis|hevc|hevx|mif1|msf1)$/.test(ascii(b, 8, 4)));
  }
  function tiffAt(b, i) {
    return (b[i] === 0x49 && b[i + 1] === 0x49 && b[i + 2] === 0x2A && b[i + 3] === 0) ||
           (b[i] === 0x4D && b[i + 1] === 0x4D && b[i + 2] === 0 && b[i + 3] === 0x2A);
  }
  function exifOf(b) {  // the TIFF block of the photo's EXIF: a JPEG's APP1 "Exif", or found in an HEIC file
    var i, n;
    if (b[0] === 0xFF && b[1] === 0xD8) {
      for (i = 2; i + 4 <= b.length && b[i] === 0xFF && b[i + 1] !== 0xDA; i += 2 + n) {
        n = (b[i + 2] << 8) | b[i + 3];
        if (b[i + 1] === 0xE1 && ascii(b, i + 4, 6) === "Exif\0\0") { return b.slice(i + 10, i + 2 + n); }
      }
      return null;
    }
    for (i = 0; i + 10 < b.length; i++) {
      if (b[i] === 0x45 && ascii(b, i, 6) === "Exif\0\0" && tiffAt(b, i + 6)) {
        return b.slice(i + 6, Math.min(b.length, i + 6 + 65000));  // what follows the TIFF's own offsets is ignored
      }
    }
    return null;
  }
  function upright(t) {  // IFD0 Orientation (0x0112) := 1
    var le = t[0] === 0x49;
    function u16(o) { return le ? t[o] | (t[o + 1] << 8) : (t[o] << 8) | t[o + 1]; }
    function u32(o) { return le ? (t[o] | (t[o + 1] << 8) | (t[o + 2] << 16) | (t[o + 3] << 24)) >>> 0
                                : ((t[o] << 24) | (t[o + 1] << 16) | (t[o + 2] << 8) | t[o + 3]) >>> 0; }
    var ifd = u32(4);
    if (ifd + 2 > t.length) { return t; }
    for (var k = 0, n = u16(ifd); k < n && ifd + 14 + k * 12 <= t.length; k++) {
      var e = ifd + 2 + k * 12;
      if (u16(e) === 0x0112) { t[e + 8] = le ? 1 : 0; t[e + 9] = le ? 0 : 1; }
    }
    return t;
  }
  function withExif(jpg, tiff) {  // SOI, the encoder's APP0 (if any), APP1 "Exif" with ``tiff``, the rest
    if (tiff.length + 8 > 0xFFFF) { return jpg; }
    var at = 2;
    if (jpg[2] === 0xFF && jpg[3] === 0xE0) { at = 4 + ((jpg[4] << 8) | jpg[5]); }
    var seg = new Uint8Array(10 + tiff.length), len = tiff.length + 8;
    seg.set([0xFF, 0xE1, len >> 8, len & 0xFF, 0x45, 0x78, 0x69, 0x66, 0, 0]);
    seg.set(tiff, 10);
    var out = new Uint8Array(jpg.length + seg.length);
    out.set(jpg.subarray(0, at));
    out.set(seg, at);
    out.set(jpg.subarray(at), at + seg.length);
    return out;
  }
  function asJpeg(file, bytes, maxPx) {
    return createImageBitmap(file).then(function (bmp) {
      var r = Math.min(1, maxPx / Math.max(bmp.width, bmp.height));
      var c = document.createElement("canvas");
      c.width = Math.round(bmp.width * r);
      c.height = Math.round(bmp.height * r);
      var ctx = c.getContext("2d");
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, c.width, c.height);
      ctx.drawImage(bmp, 0, 0, c.width, c.height);
      return new Promise(function (resolve, reject) {
        c.toBlob(function (b) { if (b) { resolve(b); } else { reject(new Error("JPEG")); } }, "image/jpeg", PHOTO_QUALITY);
      });
    }).then(function (blob) { return blob.arrayBuffer(); }).then(function (buf) {
      var tiff = exifOf(bytes), jpg = new Uint8Array(buf);
      return new File([tiff ? withExif(jpg, upright(tiff)) : jpg], (file.name || "photo").replace(/\.[A-Za-z]+$/, "") + ".jpg",
                      {type: "image/jpeg", lastModified: file.lastModified});
    });
  }
  function preparePhoto(file, weak) {
    return file.arrayBuffer().then(function (buf) {
      var bytes = new Uint8Array(buf);
      if (heic(file, bytes)) {
        if (!window.createImageBitmap) { throw new Error(ERR_HEIC.replace("{name}", file.name)); }
        return asJpeg(file, bytes, weak ? PHOTO_MAX_PX : FULL_PX).catch(function () {
          throw new Error(ERR_HEIC.replace("{name}", file.name));
        });
      }
      if (!weak || !window.createImageBitmap || !/^image\/(jpeg|png)$/.test(file.type || "")) { return file; }
      return createImageBitmap(file).then(function (bmp) {
        return Math.max(bmp.width, bmp.height) > PHOTO_MAX_PX ? asJpeg(file, bytes, PHOTO_MAX_PX) : file;
      }, function () { return file; });  // not readable here: the office says why
    });
  }
  function preparePhotos(files) {
    var weak = weakConnection(), smaller = 0;
    return Promise.all(files.map(function (f) {
      if (!/(^|-)photos$/.test(f[0])) { return f; }
      return preparePhoto(f[1], weak).then(function (p) {
        if (p !== f[1] && weak) { smaller += 1; }
        return [f[0], p, p === f[1] ? f[2] : p.name];
      });
    })).then(function (out) { return {files: out, smaller: smaller}; });
  }

  function signaturePad(form) {
    var canvas = $("#sig-canvas", form), pad = $("#sig-pad", form), choice = $("#sig-drawn-choice", form);
    if (!canvas || !pad || !choice) { return null; }
    var ctx = canvas.getContext("2d"), drawing = false, inked = false, last = null;
    choice.hidden = false;
    var radios = $all("input[name=signature_method]", form);
    var typed = $("#sig-typed", form);
    function sync() {
      var m = (radios.filter(function (r) { return r.checked; })[0] || {}).value;
      pad.hidden = m !== "drawn";
      typed.hidden = m !== "typed";
    }
    if (!form.getAttribute("data-restored")) {
      radios.forEach(function (r) { r.checked = r.value === "drawn"; });
    }
    radios.forEach(function (r) { r.addEventListener("change", sync); });
    sync();
    ctx.lineWidth = 2.5; ctx.lineCap = "round"; ctx.lineJoin = "round"; ctx.strokeStyle = "#111";
    function pos(e) {
      var b = canvas.getBoundingClientRect();
      return {x: (e.clientX - b.left) * canvas.width / b.width, y: (e.clientY - b.top) * canvas.height / b.height};
    }
    canvas.addEventListener("pointerdown", function (e) { drawing = true; last = pos(e); canvas.setPointerCapture(e.pointerId); e.preventDefault(); });
    canvas.addEventListener("pointermove", function (e) {
      if (!drawing) { return; }
      var p = pos(e);
      ctx.beginPath(); ctx.moveTo(last.x, last.y); ctx.lineTo(p.x, p.y); ctx.stroke();
      last = p; inked = true;
    });
    ["pointerup", "pointercancel", "pointerleave"].forEach(function (t) { canvas.addEventListener(t, function () { drawing = false; }); });
    $("#sig-clear", form).addEventListener("click", function () { ctx.clearRect(0, 0, canvas.width, canvas.height); inked = false; });
    return {
      method: function () { return (radios.filter(function (r) { return r.checked; })[0] || {}).value; },
      inked: function () { return inked; },
      blob: function () { return new Promise(function (resolve) { canvas.toBlob(resolve, "image/png"); }); },
      clear: function () { ctx.clearRect(0, 0, canvas.width, canvas.height); inked = false; },
      draw: function (blob) {
        return createImageBitmap(blob).then(function (bmp) { ctx.drawImage(bmp, 0, 0); inked = true; });
      }
    };
  }

  function showErrors(form, title, list) {
    var box = $("#form-errors");
    box.textContent = "";
    box.appendChild(el("h2", {}, title));
    var ul = el("ul", {});
    (list || []).forEach(function (t) { ul.appendChild(el("li", {}, t)); });
    box.appendChild(ul);
    box.hidden = false;
    box.setAttribute("tabindex", "-1");
    box.focus();
  }

  function reportForm(form) {
    kindSections(form);
    previews(form);
    var pad = signaturePad(form);
    var hint = $("[data-offline-hint]", form);
    if (hint) { hint.hidden = false; }
    var submit = $("#report-submit", form);
    submit.textContent = "Save and send the report";

    form.addEventListener("submit", function (ev) {
      if (ev.submitter && ev.submitter.name === "_refresh") { return; }
      if (!window.indexedDB) { return; }  // plain post
      ev.preventDefault();
      if (pad && pad.method() === "drawn" && !pad.inked()) {
        showErrors(form, "The report is not signed", ["Sign on the screen, or choose “Type my name to attest it”."]);
        return;
      }
      var keyInput = form.elements.client_key;
      if (!keyInput.value) { keyInput.value = newKey(); }
      var fd = new FormData(form), fields = [], files = [];
      fd.forEach(function (v, k) {
        if (typeof v === "string") { fields.push([k, v]); }
        else if (v && v.size) { files.push([k, v, v.name || "photo.jpg"]); }
      });
      var kindSel = form.elements.kind;
      var rec = {key: keyInput.value, user: CFG.user, number: form.getAttribute("data-number"),
                 site: form.getAttribute("data-site"), title: kindSel.options[kindSel.selectedIndex].text,
                 endpoint: form.getAttribute("data-outbox"), formUrl: location.pathname + location.search.replace(/[?&]draft=[^&]*/, ""),
                 created: new Date().toISOString(), fields: fields, files: files, status: "waiting", force: !!fd.get("force")};
      submit.disabled = true;
      var smaller = 0;
      preparePhotos(files).then(function (r) {
        rec.files = r.files;
        smaller = r.smaller;
        return pad && pad.method() === "drawn" ? pad.blob() : null;
      }).then(function (blob) {
        if (blob) { rec.files.push(["signature_png", blob, "signature.png"]); }
        return put("outbox", rec);
      }).then(function () {
        if (smaller) {
          smaller = " " + (smaller === 1 ? "1 photo was" : smaller + " photos were") + " made smaller for the weak " +
                    "connection (longest side " + PHOTO_MAX_PX + " px); the time and position in them are kept.";
          say(smaller.trim());
        }
        if (!navigator.onLine) { return null; }
        return flush().then(function () { return getOne("outbox", rec.key); });  // the one sender (one at a time)
      }).then(function (left) {
        submit.disabled = false;
        if (left === undefined) {  // sent: it left the outbox
          return getOne("sent", rec.key).then(function (s) { location.assign(s && s.url ? s.url : location.pathname); });
        }
        if (left && (left.status === "refused" || left.status === "conflict")) {
          showErrors(form, left.status === "conflict" ? "The file changed since you opened this form" : "The report was not filed",
                     (left.status === "conflict" ? left.conflicts : left.errors) || []);
          return render();
        }
        // kept on the phone: clear the form for the next report; the outbox sends this one later
        form.reset();
        keyInput.value = "";
        if (pad) { pad.clear(); }
        $all(".previews", form).forEach(function (b) { b.textContent = ""; });
        var box = $("#form-errors");
        box.hidden = true;
        say((left && left.status === "signin" ? "Saved on this phone. " + left.message
                                               : "Saved on this phone: it will be sent when the connection returns.") +
            (smaller || ""));
        var st = $("#offline-status");
        if (st) { st.setAttribute("tabindex", "-1"); st.focus(); }
        return render();
      }).catch(function (e) {
        submit.disabled = false;
        showErrors(form, "The report could not be saved on this phone", [String(e.message || e)]);  // an HEIC photo, …
      });
    });

    var m = location.search.match(/[?&]draft=([^&]+)/);
    if (m) { restore(form, decodeURIComponent(m[1]), pad); }
  }

  function restore(form, key, pad) {
    getOne("outbox", key).then(function (rec) {
      if (!rec) { return; }
      form.setAttribute("data-restored", "1");
      var byName = {};
      rec.fields.forEach(function (f) { (byName[f[0]] = byName[f[0]] || []).push(f[1]); });
      $all("input, select, textarea", form).forEach(function (inp) {
        var vals = byName[inp.name];
        if (inp.type === "file" || inp.name === "csrfmiddlewaretoken" || inp.name === "force") { return; }
        if (inp.type === "checkbox" || inp.type === "radio") { inp.checked = !!vals && vals.indexOf(inp.value) >= 0; }
        else if (vals) { inp.value = vals[0]; }
      });
      form.elements.kind.dispatchEvent(new Event("change"));
      $all("input[name=signature_method]", form).forEach(function (r) { r.dispatchEvent(new Event("change")); });
      var byInput = {};
      rec.files.forEach(function (f) { (byInput[f[0]] = byInput[f[0]] || []).push(new File([f[1]], f[2], {type: f[1].type})); });
      Object.keys(byInput).forEach(function (name) {
        if (name === "signature_png") { if (pad) { pad.draw(byInput[name][0]); } return; }
        var input = form.elements[name];
        if (!input || !window.DataTransfer) { return; }
        var dt = new DataTransfer();
        byInput[name].forEach(function (f) { dt.items.add(f); });
        input.files = dt.files;
        input.dispatchEvent(new Event("change"));
        var captions = byName[name + "-caption"] || [];
        $all("input[name='" + name + "-caption']", form).forEach(function (c, i) { c.value = captions[i] || ""; });
      });
      say("Your report as you wrote it; change what was refused and send it again.");
      if (rec.status === "conflict" || rec.status === "refused") {
        showErrors(form, rec.status === "conflict" ? "The file changed since you opened this form" : "The report was not filed",
                   (rec.status === "conflict" ? rec.conflicts : rec.errors) || []);
      }
    });
  }

  /* ---------------------------------------------------------------- offline: the service worker */
  function pageAssets() {
    var urls = [location.pathname + location.search, CFG.outboxUrl];
    $all("link[rel=stylesheet][href], script[src]").forEach(function (n) {
      var u = n.getAttribute("href") || n.getAttribute("src");
      if (u && u.charAt(0) === "/") { urls.push(u); }
    });
    var data = $("#offline-urls");
    if (data) { JSON.parse(data.textContent).forEach(function (u) { urls.push(u); }); }
    return urls.filter(function (u, i) { return urls.indexOf(u) === i; });
  }

  function offline() {
    if (!("serviceWorker" in navigator) || !CFG.sw) { return; }
    var status = $("#offline-status");
    var last = null;
    try { last = localStorage.getItem("stormwater-field-user"); } catch (e) { /* private mode */ }
    navigator.serviceWorker.register(CFG.sw, {scope: CFG.scope}).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (reg) {
      var worker = reg.active;
      if (last && last !== CFG.user) { worker.postMessage({type: "clear"}); }  // another person's pages are not kept
      try { localStorage.setItem("stormwater-field-user", CFG.user); } catch (e) { /* private mode */ }
      var urls = pageAssets();
      return new Promise(function (resolve) {
        var ch = new MessageChannel();
        ch.port1.onmessage = function (e) { resolve(e.data); };
        worker.postMessage({type: "precache", urls: urls}, [ch.port2]);
      }).then(function (r) {
        var forms = urls.filter(function (u) { return u.indexOf("/report/") >= 0; }).length;
        if (status && r && r.ok) {
          status.textContent = "Ready to work offline" + (forms ? ": " + forms + " report form" + (forms > 1 ? "s" : "") + " kept on this phone." : ".");
          status.setAttribute("data-ready", "1");
        }
      });
    }).catch(function () {
      if (status) { status.textContent = "This browser cannot keep the pages for offline use; reports still wait in the outbox."; }
    });
  }

  /* ---------------------------------------------------------------- positions from the phone */
  function geolocation() {
    if (!navigator.geolocation) { return; }
    var here = $("#from-here");
    if (here) {
      here.hidden = false;
      here.addEventListener("click", function () {
        here.disabled = true;
        navigator.geolocation.getCurrentPosition(function (p) {
          location.assign(here.getAttribute("data-here-url") + "?from=" + p.coords.latitude.toFixed(6) + "," + p.coords.longitude.toFixed(6));
        }, function (e) { here.disabled = false; say("Your position is not available (" + e.message + ")."); },
        {enableHighAccuracy: true, timeout: 15000});
      });
    }
    $all("form[data-geolocate]").forEach(function (f) {
      var b = $("button", f);
      b.hidden = false;
      f.addEventListener("submit", function (ev) {
        if (f.elements.latitude.value) { return; }
        ev.preventDefault();
        navigator.geolocation.getCurrentPosition(function (p) {
          f.elements.latitude.value = p.coords.latitude.toFixed(6);
          f.elements.longitude.value = p.coords.longitude.toFixed(6);
          f.submit();
        }, function (e) { say("Your position is not available (" + e.message + ")."); }, {enableHighAccuracy: true, timeout: 15000});
      });
    });
  }

  /* a BMP added from the field (issue 30) is placed where the inspector stands, when the phone can tell */
  function placeWhereIStand() {
    $all("form[data-geolocate-optional]").forEach(function (f) {
      f.addEventListener("submit", function (ev) {
        var what = $("input[name=what]:checked", f);
        if (!navigator.geolocation || !what || what.value !== "bmp" || f.elements.latitude.value) { return; }
        ev.preventDefault();
        navigator.geolocation.getCurrentPosition(function (p) {
          f.elements.latitude.value = p.coords.latitude.toFixed(6);
          f.elements.longitude.value = p.coords.longitude.toFixed(6);
          f.submit();
        }, function () { f.submit(); }, {enableHighAccuracy: true, timeout: 15000});
      });
    });
  }

  /* ---------------------------------------------------------------- directions (issue 30) */
  function directions() {
    // an iPhone or iPad has no geo: handler: its Maps app opens from maps.apple.com (the server gives both)
    var ios = /iPhone|iPad|iPod/.test(navigator.userAgent) || (navigator.platform === "MacIntel" && navigator.maxTouchPoints > 1);
    if (!ios) { return; }
    $all("a.directions[data-apple]").forEach(function (a) { a.setAttribute("href", a.getAttribute("data-apple")); });
  }

  function start() {
    var form = $("#report-form");
    directions();
    placeWhereIStand();
    if (form) { reportForm(form); }
    geolocation();
    offline();
    render().then(function () { if (navigator.onLine) { flush(); } });
    window.addEventListener("online", function () { say("Back online: sending what is waiting."); flush(); });
    window.addEventListener("offline", function () { say("No connection: reports are kept on this phone."); });
    document.addEventListener("field:sent", function (e) { say(e.detail.message); });
    setInterval(function () { if (navigator.onLine && document.visibilityState === "visible") { flush(); } }, 60000);
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
