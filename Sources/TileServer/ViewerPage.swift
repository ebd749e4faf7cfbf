#if Server
/// The HTML the server answers with: a list of its pyramids, and a page that shows one, pannable
/// and zoomable, with nothing fetched from anywhere but this server (a small canvas viewer of the
/// Deep Zoom tiles, written here; no script from a CDN).
enum ViewerPage {
    /// The list of pyramids, each linked to its viewer, Deep Zoom descriptor and IIIF information.
    static func index(names: [String]) -> String {
        let items = names.map { name in
            "<li><a href=\"view/\(name)\">\(name)</a> · <a href=\"dzi/\(name).dzi\">Deep Zoom</a> · <a href=\"iiif/3/\(name)/info.json\">IIIF</a></li>"
        }.joined(separator: "\n")
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Pyramids</title>
            <style>body{font:16px system-ui,sans-serif;margin:2em}</style></head>
            <body><h1>Pyramids</h1><ul>
            \(items.isEmpty ? "<li>None yet: make one with <code>fic tile IMAGE --out STORE/NAME</code>.</li>" : items)
            </ul></body></html>

            """
    }

    /// The viewer of the pyramid `name`, a `width × height` image (pyramid names need no escaping:
    /// letters, digits, `-`, `_` and `.`).
    static func page(name: String, width: Int, height: Int) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(name)</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style>
        html,body{margin:0;height:100%;overflow:hidden;background:#222;font:14px system-ui,sans-serif}
        canvas{display:block;width:100%;height:100%;cursor:grab;touch-action:none}
        #bar{position:fixed;top:8px;left:8px;display:flex;gap:4px}
        #bar button{font-size:18px;width:36px;height:36px}
        </style></head>
        <body><canvas id="view"></canvas>
        <div id="bar"><button id="in" title="Zoom in">+</button><button id="out" title="Zoom out">−</button><button id="home" title="Whole image">⌂</button></div>
        <script>
        "use strict";
        // Deep Zoom: level L is the image scaled by 2^(L - TOP), 256-pixel tiles, no overlap.
        // (Not `top`: a global `const top` clashes with window.top, a SyntaxError that stops the script.)
        const W = \(width), H = \(height), TILE = 256, NAME = \(jsonString(name));
        const TOP = Math.ceil(Math.log2(Math.max(W, H)));
        const canvas = document.getElementById("view"), ctx = canvas.getContext("2d");
        const tiles = new Map();            // "L/c/r" -> {img, ok}
        let scale = 1, x0 = 0, y0 = 0;      // screen pixels per image pixel; image point at the top-left
        let pending = 0;
        function levelSize(L) { const f = Math.pow(2, TOP - L); return [Math.ceil(W / f), Math.ceil(H / f)]; }
        function tile(L, c, r, load) {
          const key = L + "/" + c + "/" + r;
          let t = tiles.get(key);
          if (!t && load) {
            t = {img: new Image(), ok: false};
            tiles.set(key, t);
            pending++;
            t.img.onload = () => { t.ok = true; pending--; draw(); };
            t.img.onerror = () => { pending--; };
            t.img.src = "../dzi/" + NAME + "_files/" + L + "/" + c + "_" + r + ".jpg";
          }
          return t;
        }
        function resize() {
          canvas.width = canvas.clientWidth * devicePixelRatio;
          canvas.height = canvas.clientHeight * devicePixelRatio;
        }
        function home() {
          resize();
          scale = Math.min(canvas.width / W, canvas.height / H);
          x0 = (W - canvas.width / scale) / 2; y0 = (H - canvas.height / scale) / 2;
          draw();
        }
        // The level whose pixels are at least as fine as the screen's.
        function wantedLevel() { return Math.max(0, Math.min(TOP, TOP + Math.ceil(Math.log2(scale) - 1e-9))); }
        function drawLevel(L, load) {
          const f = Math.pow(2, TOP - L), [lw, lh] = levelSize(L);
          const c0 = Math.max(0, Math.floor(x0 / f / TILE)), r0 = Math.max(0, Math.floor(y0 / f / TILE));
          const c1 = Math.min(Math.ceil(lw / TILE) - 1, Math.floor((x0 + canvas.width / scale) / f / TILE));
          const r1 = Math.min(Math.ceil(lh / TILE) - 1, Math.floor((y0 + canvas.height / scale) / f / TILE));
          let complete = true;
          for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) {
            const t = tile(L, c, r, load);
            if (!t || !t.ok) { complete = false; continue; }
            const sx = (c * TILE * f - x0) * scale, sy = (r * TILE * f - y0) * scale;
            ctx.drawImage(t.img, Math.floor(sx), Math.floor(sy), Math.ceil(t.img.width * f * scale + sx - Math.floor(sx)), Math.ceil(t.img.height * f * scale + sy - Math.floor(sy)));
          }
          return complete;
        }
        function draw() {
          ctx.fillStyle = "#222"; ctx.fillRect(0, 0, canvas.width, canvas.height);
          ctx.imageSmoothingQuality = "high";
          const L = wantedLevel();
          // Coarser tiles stand in until the finer ones arrive (only loaded ones are drawn).
          const coarse = Math.max(0, L - 4);
          if (coarse < L) drawLevel(coarse, true);
          for (let k = coarse + 1; k < L; k++) drawLevel(k, false);
          window.ficViewer.complete = drawLevel(L, true);
        }
        function zoom(factor, cx, cy) {
          const ix = x0 + cx / scale, iy = y0 + cy / scale;
          scale = Math.min(4, Math.max(Math.min(canvas.width / W, canvas.height / H) / 2, scale * factor));
          x0 = ix - cx / scale; y0 = iy - cy / scale;
          draw();
        }
        let drag = null;
        canvas.addEventListener("pointerdown", e => { drag = [e.clientX, e.clientY]; canvas.setPointerCapture(e.pointerId); });
        canvas.addEventListener("pointermove", e => {
          if (!drag) return;
          x0 -= (e.clientX - drag[0]) * devicePixelRatio / scale; y0 -= (e.clientY - drag[1]) * devicePixelRatio / scale;
          drag = [e.clientX, e.clientY]; draw();
        });
        canvas.addEventListener("pointerup", () => { drag = null; });
        canvas.addEventListener("wheel", e => { e.preventDefault(); zoom(e.deltaY < 0 ? 1.25 : 0.8, e.offsetX * devicePixelRatio, e.offsetY * devicePixelRatio); }, {passive: false});
        canvas.addEventListener("dblclick", e => zoom(2, e.offsetX * devicePixelRatio, e.offsetY * devicePixelRatio));
        document.getElementById("in").onclick = () => zoom(2, canvas.width / 2, canvas.height / 2);
        document.getElementById("out").onclick = () => zoom(0.5, canvas.width / 2, canvas.height / 2);
        document.getElementById("home").onclick = home;
        window.addEventListener("resize", () => { resize(); draw(); });
        // For scripts and tests: show the image rectangle (x, y, w, h) in full-resolution pixels.
        window.ficViewer = {
          complete: false,
          pending: () => pending,
          level: () => wantedLevel(),
          show(x, y, w, h) { resize(); scale = Math.min(canvas.width / w, canvas.height / h); x0 = x + w / 2 - canvas.width / scale / 2; y0 = y + h / 2 - canvas.height / scale / 2; draw(); },
          home,
        };
        home();
        </script></body></html>

        """
    }

    /// `text` as a JavaScript string literal.
    private static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "<": out += "\\u003c"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
#endif
