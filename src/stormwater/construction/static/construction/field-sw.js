/* The field pages' service worker (issue 18), served at /field/sw.js with scope /field/.

   Pages under /field/ (today's list, the week, the outbox, the report forms) are fetched from the network when
   there is one, and kept in this phone's cache so they open without one; the page asks for today's report forms to
   be kept in advance ("precache" message). Static files the pages use are kept the same way. Nothing is sent from
   here: reports wait in the page's outbox (IndexedDB) and field.js sends them, once, when the connection returns.
   A page that redirects (an ended sign-in) is never kept in place of the page asked for. */
"use strict";

var VERSION = "field-v1";
var CACHE = "stormwater-field-" + VERSION;

self.addEventListener("install", function () { self.skipWaiting(); });

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k.indexOf("stormwater-field-") === 0 && k !== CACHE; })
      .map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

function keep(cache, url) {
  return fetch(url, {credentials: "same-origin", cache: "no-store"}).then(function (r) {
    if (r.ok && !r.redirected) { return cache.put(url, r).then(function () { return 1; }); }
    return 0;
  }, function () { return 0; });
}

self.addEventListener("message", function (event) {
  var data = event.data || {}, port = event.ports && event.ports[0];
  if (data.type === "precache") {
    var urls = (data.urls || []).filter(function (u) {  // only what this worker serves: /field/ pages, static files
      return typeof u === "string" && (u.indexOf("/field/") === 0 || u.indexOf("/static/") === 0);
    });
    event.waitUntil(caches.open(CACHE).then(function (cache) {
      return Promise.all(urls.map(function (u) { return keep(cache, u); }));
    }).then(function (done) {
      if (port) { port.postMessage({ok: true, kept: done.reduce(function (a, b) { return a + b; }, 0)}); }
    }, function (e) { if (port) { port.postMessage({ok: false, error: String(e)}); } }));
  } else if (data.type === "clear") {
    event.waitUntil(caches.delete(CACHE));
  }
});

var OFFLINE_PAGE = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">" +
  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Offline</title></head><body>" +
  "<main><h1>No connection</h1><p>This page was not kept on this phone. <a href=\"/field/today/\">Today's " +
  "inspections</a> and the report forms opened from it work offline; reports you write wait in the " +
  "<a href=\"/field/outbox/\">outbox</a>.</p></main></body></html>";

function fromCache(request) {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request).then(function (hit) {
      // a report form opened with other query parameters (a draft key, another storm): any kept copy of that form
      return hit || cache.match(request, {ignoreSearch: true});
    });
  });
}

function networkFirst(event) {
  var request = event.request;
  return fetch(request).then(function (r) {
    if (r.ok && !r.redirected && r.type === "basic") {
      var copy = r.clone();
      event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.put(request, copy); }));
    }
    return r;
  }, function () {
    return fromCache(request).then(function (hit) {
      if (hit) { return hit; }
      if (request.mode === "navigate") {
        return new Response(OFFLINE_PAGE, {status: 503, headers: {
          "Content-Type": "text/html; charset=utf-8",
          "Content-Security-Policy": "default-src 'none'; base-uri 'none'; form-action 'none'"}});
      }
      return Response.error();
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") { return; }            // posts go to the network, never to a cache
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) { return; }
  if (url.pathname === "/field/sw.js") { return; }
  if (url.pathname.indexOf("/field/") === 0 || url.pathname.indexOf("/static/") === 0) {
    event.respondWith(networkFirst(event));
  }
});
