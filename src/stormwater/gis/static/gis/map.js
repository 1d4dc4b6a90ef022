/* Every map of the app: parcel and change maps (GeoJSON from the app's API), point maps (the stewardship BMP
   inventory, from a json_script element) and the town map (parcels, permits, construction files, O&M sites, BMPs;
   issue 16). Leaflet (vendored), no tile server needed; the basemap (settings.GIS_TILE_URL: MassGIS orthophotos
   by default in production) is added when data-tile-url is set; else, where data-base is set (the field maps),
   the town's own parcel outlines and roads from this origin (issue 30).
   Labels are data (owners' and importers' names): every label goes through esc() or textContent, never into HTML
   as it is (issue 14). */
(function () {
  "use strict";
  var PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                 "#bcbd22", "#17becf"];
  function fmt(v) { return Number(v).toLocaleString("en-US", {maximumFractionDigits: 0}); }
  function esc(s) { return String(s).replace(/[&<>"']/g, function (c) {
    return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]; }); }

  function narrowScreen() { return !!(window.matchMedia && window.matchMedia("(max-width: 40rem)").matches); }

  function baseMap(el) {
    var map = L.map(el, {zoomSnap: 0.25, maxZoom: 22});
    var url = el.getAttribute("data-tile-url");
    if (url) {
      L.tileLayer(url, {maxZoom: 22, maxNativeZoom: 19, attribution: el.getAttribute("data-tile-attribution") || ""}).addTo(map);
    } else if (el.getAttribute("data-base")) {
      ownBase(map, el);
    }
    return map;
  }

  /* Without a tile server (issue 30): the town's own parcel outlines and roads (the right-of-way layer its GIS survey
     kept), GeoJSON from this origin (data-base, under /field/ so the service worker keeps it for use without a
     connection), drawn under everything else. Nothing is fetched from another origin. */
  function ownBase(map, el) {
    var pane = map.createPane("ownbase");
    pane.style.zIndex = 250;  // above an (absent) tile pane, below shapes and markers
    fetch(el.getAttribute("data-base"), {credentials: "same-origin", headers: {Accept: "application/json"}})
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
      .then(function (data) {
        L.geoJSON(data, {pane: "ownbase", interactive: false, style: function (f) {
          // the town's roads (its survey's right-of-way layer) light on the grey parcels, as a street map draws them
          return (f.properties || {}).kind === "road"
            ? {color: "#b9ad8f", weight: 1, fillColor: "#fffdf5", fillOpacity: 1}
            : {color: "#8a9399", weight: 1, fillColor: "#eef1f2", fillOpacity: 0.6};
        }}).addTo(map);
        el.setAttribute("data-base-ready", String((data.features || []).length));
      })
      .catch(function () { el.setAttribute("data-base-ready", "0"); });
  }

  function parcelMap(el, data) {
    var map = baseMap(el), overlays = {}, bounds = null;
    var parcel = L.geoJSON({type: "FeatureCollection", features: data.features.filter(function (f) {
      return f.properties.kind === "parcel"; })}, {
      style: {color: "#0b4f6c", weight: 3, fill: true, fillOpacity: 0.05},
      onEachFeature: function (f, lyr) {
        lyr.bindPopup("Parcel " + esc(f.properties.parcel_id) + "<br>" + fmt(f.properties.area_sqft) + " ft²");
      }}).addTo(map);
    overlays["Parcel"] = parcel;
    bounds = parcel.getBounds();
    (data.layers || []).forEach(function (name, i) {
      var color = PALETTE[i % PALETTE.length];
      var g = L.geoJSON({type: "FeatureCollection", features: data.features.filter(function (f) {
        return f.properties.kind === "impervious" && f.properties.layer === name; })}, {
        style: {color: color, weight: 1, fillColor: color, fillOpacity: 0.55},
        onEachFeature: function (f, lyr) {
          lyr.bindPopup(esc(name) + " (feature " + esc(f.properties.source_fid) + ")<br>" +
                        fmt(f.properties.area_sqft) + " ft² on this parcel");
        }}).addTo(map);
      overlays['<span style="color:' + color + '">■</span> ' + esc(name)] = g;
    });
    L.control.layers(null, overlays, {collapsed: narrowScreen()}).addTo(map);
    if (bounds && bounds.isValid()) { map.fitBounds(bounds, {padding: [20, 20]}); }
    if (data.survey) { el.setAttribute("data-survey", data.survey.name); }
    el.setAttribute("data-ready", "1");
  }

  function changeMap(el, data) {
    var map = baseMap(el);
    var all = L.geoJSON(data, {
      style: function (f) {
        var k = f.properties.kind;
        if (k === "added") { return {color: "#2e8b57", weight: 1, fillColor: "#2e8b57", fillOpacity: 0.7}; }
        if (k === "removed") { return {color: "#c0392b", weight: 1, fillColor: "#c0392b", fillOpacity: 0.7}; }
        var d = Number(f.properties.fee_change);
        return {color: d > 0 ? "#a1131f" : (d < 0 ? "#1e6b34" : "#0b4f6c"), weight: 2, fill: true, fillOpacity: 0.04};
      },
      onEachFeature: function (f, lyr) {
        var p = f.properties;
        lyr.bindPopup(p.kind === "parcel"
          ? "Parcel " + esc(p.parcel_id) + " " + esc(p.address) + "<br>impervious " + fmt(p.sqft_change) +
            " ft², fee $" + esc(p.fee_change) + "/yr"
          : esc(p.kind) + " on " + esc(p.parcel_id) + ": " + fmt(p.area_sqft) + " ft²");
      }}).addTo(map);
    var b = all.getBounds();
    if (b.isValid()) { map.fitBounds(b, {padding: [20, 20]}); } else { map.setView([42.05, -72.57], 14); }
    el.setAttribute("data-ready", "1");
  }

  var CATEGORY_PALETTE = ["#0b4f6c", "#b5651d", "#2e7d32", "#6a1b9a", "#c62828", "#00838f", "#f9a825", "#455a64"];

  function pointsMap(el, pts) {
    var map = baseMap(el), colors = {}, n = 0, markers = [];
    pts.forEach(function (p) {
      if (!(p.cat in colors)) { colors[p.cat] = CATEGORY_PALETTE[n++ % CATEGORY_PALETTE.length]; }
      markers.push(L.circleMarker([p.lat, p.lon], {radius: 5, color: colors[p.cat], fillOpacity: 0.8})
        .bindTooltip(esc(p.name) + " — " + esc(p.cat)).addTo(map));
    });
    if (markers.length) { map.fitBounds(L.featureGroup(markers).getBounds().pad(0.1)); }
    var legend = L.control({position: "bottomright"});
    legend.onAdd = function () {
      var d = L.DomUtil.create("div", "legend");
      d.style.background = "#fff";
      d.style.padding = "4px 6px";
      Object.keys(colors).forEach(function (k) {
        var row = document.createElement("div"), dot = document.createElement("span");
        dot.style.color = colors[k];
        dot.textContent = "● ";
        row.appendChild(dot);
        row.appendChild(document.createTextNode(k));
        d.appendChild(row);
      });
      return d;
    };
    legend.addTo(map);
    el.setAttribute("data-ready", "1");
  }

  var TOWN_COLORS = {permit: "#6a1b9a", construction: "#c62828", site: "#00838f", bmp: "#b5651d"};
  var TOWN_LAYERS = {parcel: "Parcels", permit: "Permits", construction: "Construction files", site: "O&M sites",
                     bmp: "BMPs"};

  function popupOf(p) {
    // Labels are data (addresses, names): escaped; the link is a same-site path made by the server.
    var a = document.createElement("a");
    a.setAttribute("href", String(p.url || "").charAt(0) === "/" ? p.url : "#");
    a.textContent = TOWN_LAYERS[p.kind] ? TOWN_LAYERS[p.kind].replace(/s$/, "") + " " + p.label : p.label;
    var div = document.createElement("div");
    div.appendChild(a);
    div.appendChild(document.createElement("br"));
    div.appendChild(document.createTextNode(p.detail || ""));
    return div;
  }

  function townMap(el, data) {
    var map = baseMap(el), groups = {}, all = [], byLabel = [];
    Object.keys(TOWN_LAYERS).forEach(function (k) { groups[k] = L.featureGroup(); });
    data.features.forEach(function (f) {
      var p = f.properties, lyr;
      if (p.kind === "parcel") {
        lyr = L.geoJSON(f, {style: {color: "#0b4f6c", weight: 1.5, fillOpacity: 0.08}});
      } else {
        var c = f.geometry.coordinates;
        lyr = L.circleMarker([c[1], c[0]], {radius: p.kind === "bmp" ? 5 : 8, color: "#fff", weight: 2,
                                             fillColor: TOWN_COLORS[p.kind] || "#333", fillOpacity: 0.95});
      }
      lyr.bindPopup(popupOf(p));
      lyr.bindTooltip(esc(p.label));
      (groups[p.kind] || groups.parcel).addLayer(lyr);
      all.push(lyr);
      byLabel.push({text: (p.label + " " + (p.detail || "")).toLowerCase(), layer: lyr});
    });
    var overlays = {};
    Object.keys(TOWN_LAYERS).forEach(function (k) {
      if (groups[k].getLayers().length) { groups[k].addTo(map); overlays[esc(TOWN_LAYERS[k])] = groups[k]; }
    });
    L.control.layers(null, overlays, {collapsed: narrowScreen()}).addTo(map);
    var b = all.length ? L.featureGroup(all).getBounds() : null;
    if (b && b.isValid()) { map.fitBounds(b, {padding: [20, 20]}); } else { map.setView([42.05, -72.57], 13); }
    var status = document.getElementById("town-map-status");
    var find = (el.getAttribute("data-find") || "").toLowerCase().trim();
    if (find) {
      var hit = byLabel.filter(function (x) { return x.text.indexOf(find) >= 0; })[0];
      if (hit) {
        var hb = hit.layer.getBounds ? hit.layer.getBounds() : L.latLngBounds([hit.layer.getLatLng()]);
        map.fitBounds(hb, {maxZoom: 19, padding: [40, 40]});
        hit.layer.openPopup(hit.layer.getLatLng ? hit.layer.getLatLng() : hb.getCenter());
      } else if (status) { status.textContent = "Not on the map: see the matches below."; }
    }
    var u = data.unplaced || {};
    var missing = Object.keys(u).filter(function (k) { return u[k] > 0; })
      .map(function (k) { return u[k] + " " + TOWN_LAYERS[k].toLowerCase(); });
    if (status && missing.length && !find) { status.textContent = "Without a place on the map: " + missing.join(", ") + "."; }
    el.setAttribute("data-ready", "1");
  }

  document.querySelectorAll(".gis-map[data-town]").forEach(function (el) {
    fetch(el.getAttribute("data-town"), {credentials: "same-origin", headers: {Accept: "application/json"}})
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
      .then(function (data) { townMap(el, data); })
      .catch(function (e) { el.textContent = "The map could not be loaded (" + e.message + ")."; });
  });

  /* The inspector's day (issue 18): sites numbered in route order from the start (order 0), joined by a line in
     that order; a site's label is its address (data: set with textContent only). */
  var ROUTE_COLORS = {"start": "#455a64", "overdue": "#a1131f"};
  function routeMap(el, pts) {
    var map = baseMap(el), markers = [], line = [];
    pts.slice().sort(function (a, b) { return (a.order == null ? 1e9 : a.order) - (b.order == null ? 1e9 : b.order); })
      .forEach(function (p) {
        var color = ROUTE_COLORS[p.cat] || "#0b4f6c", label = p.order === 0 ? "S" : (p.order == null ? "" : String(p.order));
        var pin = document.createElement("span");
        pin.className = "route-pin-label";
        pin.textContent = label;
        pin.style.background = color;
        var icon = L.divIcon({className: "route-pin", html: pin, iconSize: [28, 28], iconAnchor: [14, 14]});
        var m = L.marker([p.lat, p.lon], {icon: icon, keyboard: false}).addTo(map);
        var tip = document.createElement("span");
        tip.textContent = (label ? label + ". " : "") + p.name + (p.cat === "start" ? "" : " (" + p.cat + ")");
        m.bindTooltip(tip);
        markers.push(m);
        if (p.order != null) { line.push([p.lat, p.lon]); }
      });
    if (line.length > 1) { L.polyline(line, {color: "#0b4f6c", weight: 3, opacity: 0.7, dashArray: "6 6"}).addTo(map); }
    if (markers.length) { map.fitBounds(L.featureGroup(markers).getBounds().pad(0.15), {maxZoom: 16}); }
    else { map.setView([42.05, -72.57], 13); }
    el.setAttribute("data-ready", "1");
  }

  document.querySelectorAll(".gis-map[data-points]").forEach(function (el) {
    var src = document.getElementById(el.getAttribute("data-points"));
    (el.hasAttribute("data-route") ? routeMap : pointsMap)(el, src ? JSON.parse(src.textContent) : []);
  });

  document.querySelectorAll(".gis-map[data-geojson]").forEach(function (el) {
    fetch(el.getAttribute("data-geojson"), {credentials: "same-origin", headers: {Accept: "application/json"}})
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
      .then(function (data) {
        (el.getAttribute("data-kind") === "changes" ? changeMap : parcelMap)(el, data);
      })
      .catch(function (e) { el.textContent = "The map could not be loaded (" + e.message + ")."; });
  });
})();
