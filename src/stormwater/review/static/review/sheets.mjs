// Plan sheets with the review on them (issue 19): render a plan set PDF with the vendored pdf.js and
// pin reviewers' comments to a sheet and a point. No inline script, no eval, no foreign origin (CSP).
//
// The page provides:
//   <div id="sheets" data-pdf="URL" data-static="…/review/" data-pins-for="ID of a JSON script element">
//   <script type="application/json" id="…">[{"number":1,"page":2,"x":0.3,"y":0.6,"label":"…"}]</script>
// and, where a comment may be added, a form with inputs named page, x, y (visible fallback without JS).
import * as pdfjs from "./pdfjs/pdf.min.mjs";

const root = document.getElementById("sheets");
if (root) {
  const base = root.dataset.static;
  pdfjs.GlobalWorkerOptions.workerSrc = base + "pdfjs/pdf.worker.min.mjs";
  const pins = JSON.parse(document.getElementById(root.dataset.pinsFor)?.textContent || "[]");
  const form = document.getElementById("comment-form");
  const status = document.getElementById("sheets-status");
  let marker = null;

  const say = (text) => { if (status) status.textContent = text; };

  const placeMarker = (pageDiv, page, x, y) => {
    if (!form) return;
    form.elements.page.value = page;
    form.elements.x.value = (x * 100).toFixed(1);
    form.elements.y.value = (y * 100).toFixed(1);
    if (!marker) {
      marker = document.createElement("span");
      marker.className = "sheet-marker";
      marker.setAttribute("aria-hidden", "true");
      marker.textContent = "+";
    }
    marker.style.left = (x * 100) + "%";
    marker.style.top = (y * 100) + "%";
    pageDiv.appendChild(marker);
    say(`Point chosen on sheet ${page}: ${(x * 100).toFixed(1)} % across, ${(y * 100).toFixed(1)} % down. Write the comment below.`);
    const text = form.elements.text;
    if (text) text.focus({ preventScroll: false });
  };

  const render = async () => {
    say("Loading the plan set…");
    const doc = await pdfjs.getDocument({
      url: root.dataset.pdf, disableFontFace: true, useSystemFonts: false,
      standardFontDataUrl: base + "pdfjs/standard_fonts/", useWasm: false, enableXfa: false,
    }).promise;
    root.textContent = "";
    const width = Math.max(280, root.clientWidth);
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const v1 = page.getViewport({ scale: 1 });
      const scale = width / v1.width;
      const vp = page.getViewport({ scale: scale * (window.devicePixelRatio || 1) });
      const fig = document.createElement("figure");
      fig.className = "sheet";
      fig.id = `sheet-${n}`;
      const cap = document.createElement("figcaption");
      cap.textContent = `Sheet ${n} of ${doc.numPages}`;
      const holder = document.createElement("div");
      holder.className = "sheet-page";
      const canvas = document.createElement("canvas");
      canvas.width = Math.floor(vp.width);
      canvas.height = Math.floor(vp.height);
      canvas.style.width = "100%";
      canvas.setAttribute("role", "img");
      canvas.setAttribute("aria-label", `Plan sheet ${n} of ${doc.numPages}` + (form ? "; click a point to pin a comment there" : ""));
      holder.appendChild(canvas);
      fig.appendChild(cap);
      fig.appendChild(holder);
      root.appendChild(fig);
      await page.render({ canvasContext: canvas.getContext("2d"), viewport: vp, canvas }).promise;
      for (const p of pins.filter((p) => p.page === n)) {
        const a = document.createElement("a");
        a.className = "sheet-pin" + (p.resolved ? " resolved" : "");
        a.href = `#comment-${p.number}`;
        a.textContent = String(p.number);
        a.title = p.label;
        a.setAttribute("aria-label", `Comment ${p.number}: ${p.label}`);
        a.style.left = (p.x * 100) + "%";
        a.style.top = (p.y * 100) + "%";
        holder.appendChild(a);
      }
      if (form) {
        canvas.addEventListener("click", (ev) => {
          const r = canvas.getBoundingClientRect();
          const x = Math.min(1, Math.max(0, (ev.clientX - r.left) / r.width));
          const y = Math.min(1, Math.max(0, (ev.clientY - r.top) / r.height));
          placeMarker(holder, n, x, y);
        });
      }
    }
    root.dataset.rendered = String(doc.numPages);
    say(`${doc.numPages} sheets.` + (form ? " Click a point on a sheet to pin a comment there." : ""));
  };
  render().catch((e) => { say("The plan set could not be shown: " + e.message); root.dataset.rendered = "error"; });
}
