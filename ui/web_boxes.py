"""The box editor: draw, move or resize boxes on a run's image as the corrected evidence, in original pixels.

``editor_html(...)`` renders the stored image with an SVG layer whose ``viewBox`` is the image's own pixel size,
so a pointer position converts to original pixels exactly (``getScreenCTM().inverse()``), whatever size the
image is shown at. The tool's boxes (the evidence the run used) are drawn dashed: click one to adopt it as a
correction. Drag on empty image to draw a box, drag a box to move it, drag its corner handle to resize it,
double-click a box to remove it. ``BOXES_JS`` (in the page head) does the drawing and writes the boxes as JSON
into a hidden text box (``target``), which the save handler reads; ``parse_boxes`` checks that JSON on the
server (``storage.ratings.check_boxes`` checks it again, against the stored image size).
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any

from storage.ratings import check_boxes

if TYPE_CHECKING:
    from pathlib import Path

#: Gradio serves files on the allowed paths (the image store) under this prefix.
FILE_ROUTE = "/gradio_api/file="


def parse_boxes(text: str | None) -> list[dict[str, Any]]:
    """The hidden box field's JSON as checked boxes; ``ValueError`` with one line on bad input."""
    text = (text or "").strip()
    if not text:
        return []
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the boxes are not valid JSON ({exc.msg})") from None
    return check_boxes(value)


def editor_html(image: Path | None, size: tuple[int, int] | None, boxes: list[dict[str, Any]],
                suggestions: list[tuple[str, list[float]]], target: str) -> str:
    """The editor for one image (empty note when there is none). ``boxes``: the corrections so far;
    ``suggestions``: (label, box) the tools found, shown dashed."""
    if image is None or size is None:
        return "<p class='mae-boxedit-empty'>Load a run to correct its boxes.</p>"
    width, height = size
    shown = "".join(
        f"<rect class='mae-suggest' x='{x0:.0f}' y='{y0:.0f}' width='{max(1.0, x1 - x0):.0f}' "
        f"height='{max(1.0, y1 - y0):.0f}' data-label='{html.escape(label, quote=True)}'>"
        f"<title>{html.escape(label)} (click to use it)</title></rect>"
        for label, (x0, y0, x1, y1) in suggestions[:200])
    data = html.escape(json.dumps(boxes), quote=True)
    return (f"<div class='mae-boxedit' data-target='{html.escape(target, quote=True)}' data-boxes='{data}'>"
            f"<div class='mae-boxedit-stage'><img alt='the run image' src='{FILE_ROUTE}{html.escape(str(image))}'>"
            f"<svg viewBox='0 0 {width} {height}' preserveAspectRatio='none' data-w='{width}' data-h='{height}'>"
            f"<g class='mae-suggestions'>{shown}</g><g class='mae-boxes'></g></svg></div>"
            f"<p class='mae-boxedit-help'>Drag on the image to draw a box, drag a box to move it, its corner to "
            f"resize it; double-click removes it. Dashed: the tools' boxes (click one to use it). "
            f"<span class='mae-boxedit-count'></span></p></div>")


BOXES_CSS = """
.mae-boxedit-stage { position: relative; display: inline-block; max-width: 100%; line-height: 0; }
.mae-boxedit-stage img { max-width: 100%; max-height: 460px; display: block; user-select: none; }
.mae-boxedit-stage svg { position: absolute; inset: 0; width: 100%; height: 100%; touch-action: none;
  cursor: crosshair; }
.mae-boxedit .mae-suggest { fill: transparent; stroke: #e3a33b; stroke-dasharray: 6 4; stroke-width: 2;
  vector-effect: non-scaling-stroke; cursor: copy; }
.mae-boxedit .mae-box { fill: rgba(58,167,109,0.15); stroke: #3aa76d; stroke-width: 3;
  vector-effect: non-scaling-stroke; cursor: move; }
.mae-boxedit .mae-handle { fill: #3aa76d; cursor: nwse-resize; }
.mae-boxedit-help { font-size: 0.85em; margin: 4px 0 0; line-height: 1.3; }
.mae-hidden { display: none !important; }
"""

BOXES_JS = """
<script>
(() => {
  const NS = 'http://www.w3.org/2000/svg';
  const state = new WeakMap();  // editor element -> {boxes, drag}
  const boxesOf = (ed) => {
    if (!state.has(ed)) {
      let boxes = [];
      try { boxes = JSON.parse(ed.dataset.boxes || '[]'); } catch (e) { boxes = []; }
      state.set(ed, {boxes: boxes.map(b => ({box: b.box.slice(), label: b.label || ''})), drag: null});
    }
    return state.get(ed);
  };
  const point = (svg, ev) => {
    const p = svg.createSVGPoint(); p.x = ev.clientX; p.y = ev.clientY;
    const q = p.matrixTransform(svg.getScreenCTM().inverse());
    const w = +svg.dataset.w, h = +svg.dataset.h;
    return [Math.min(w, Math.max(0, q.x)), Math.min(h, Math.max(0, q.y))];
  };
  const publish = (ed) => {
    const st = boxesOf(ed);
    const clean = st.boxes.map(b => ({box: b.box.map(Math.round), label: b.label}))
                          .filter(b => b.box[2] - b.box[0] >= 1 && b.box[3] - b.box[1] >= 1);
    const field = document.querySelector(`#${ed.dataset.target} textarea, #${ed.dataset.target} input`);
    if (field) { field.value = JSON.stringify(clean);
                 field.dispatchEvent(new Event('input', {bubbles: true})); }
    const count = ed.querySelector('.mae-boxedit-count');
    if (count) count.textContent = clean.length ? `${clean.length} corrected box${clean.length > 1 ? 'es' : ''}.` : '';
  };
  const draw = (ed) => {
    const svg = ed.querySelector('svg'); const layer = ed.querySelector('.mae-boxes');
    const handle = Math.max(6, +svg.dataset.w / 60);
    layer.replaceChildren();
    boxesOf(ed).boxes.forEach((b, i) => {
      const [x0, y0, x1, y1] = b.box;
      const r = document.createElementNS(NS, 'rect');
      Object.entries({x: x0, y: y0, width: Math.max(1, x1 - x0), height: Math.max(1, y1 - y0)})
        .forEach(([k, v]) => r.setAttribute(k, v));
      r.setAttribute('class', 'mae-box'); r.dataset.index = i;
      const hd = document.createElementNS(NS, 'rect');
      Object.entries({x: x1 - handle / 2, y: y1 - handle / 2, width: handle, height: handle})
        .forEach(([k, v]) => hd.setAttribute(k, v));
      hd.setAttribute('class', 'mae-handle'); hd.dataset.index = i;
      layer.append(r, hd);
    });
  };
  // Editors come and go as runs load: draw any whose boxes were not drawn yet.
  new MutationObserver(() => document.querySelectorAll('.mae-boxedit').forEach(ed => {
    if (!ed.dataset.drawn) { ed.dataset.drawn = '1'; draw(ed); publish(ed); }
  })).observe(document.documentElement, {childList: true, subtree: true});
  document.addEventListener('pointerdown', (ev) => {
    const svg = ev.target.closest && ev.target.closest('.mae-boxedit svg');
    if (!svg || ev.button !== 0) return;
    const ed = svg.closest('.mae-boxedit'); const st = boxesOf(ed);
    const [x, y] = point(svg, ev); const t = ev.target; const cls = t.getAttribute('class') || '';
    ev.preventDefault(); svg.setPointerCapture(ev.pointerId);
    if (cls === 'mae-handle') st.drag = {mode: 'resize', i: +t.dataset.index};
    else if (cls === 'mae-box') st.drag = {mode: 'move', i: +t.dataset.index, from: [x, y],
                                           start: st.boxes[+t.dataset.index].box.slice()};
    else if (cls === 'mae-suggest') {
      const b = [+t.getAttribute('x'), +t.getAttribute('y')];
      b.push(b[0] + +t.getAttribute('width'), b[1] + +t.getAttribute('height'));
      st.boxes.push({box: b, label: t.dataset.label || ''}); st.drag = null; draw(ed); publish(ed); return;
    } else { st.boxes.push({box: [x, y, x, y], label: ''});
             st.drag = {mode: 'draw', i: st.boxes.length - 1, from: [x, y]}; }
    draw(ed);
  });
  document.addEventListener('pointermove', (ev) => {
    document.querySelectorAll('.mae-boxedit').forEach(ed => {
      const st = state.get(ed); if (!st || !st.drag) return;
      const svg = ed.querySelector('svg'); const [x, y] = point(svg, ev); const d = st.drag; const b = st.boxes[d.i];
      if (d.mode === 'draw') b.box = [Math.min(d.from[0], x), Math.min(d.from[1], y),
                                      Math.max(d.from[0], x), Math.max(d.from[1], y)];
      else if (d.mode === 'resize') { b.box[2] = Math.max(b.box[0] + 1, x); b.box[3] = Math.max(b.box[1] + 1, y); }
      else {
        const w = +svg.dataset.w, h = +svg.dataset.h, [sx0, sy0, sx1, sy1] = d.start;
        const dx = Math.min(w - sx1, Math.max(-sx0, x - d.from[0]));
        const dy = Math.min(h - sy1, Math.max(-sy0, y - d.from[1]));
        b.box = [sx0 + dx, sy0 + dy, sx1 + dx, sy1 + dy];
      }
      draw(ed);
    });
  });
  document.addEventListener('pointerup', () => {
    document.querySelectorAll('.mae-boxedit').forEach(ed => {
      const st = state.get(ed); if (!st || !st.drag) return;
      const b = st.boxes[st.drag.i];
      if (b && (b.box[2] - b.box[0] < 2 || b.box[3] - b.box[1] < 2)) st.boxes.splice(st.drag.i, 1);  // a click
      st.drag = null; draw(ed); publish(ed);
    });
  });
  document.addEventListener('dblclick', (ev) => {
    const t = ev.target; if (!t.closest || !t.closest('.mae-boxedit svg')) return;
    if ((t.getAttribute('class') || '') !== 'mae-box') return;
    const ed = t.closest('.mae-boxedit'); boxesOf(ed).boxes.splice(+t.dataset.index, 1); draw(ed); publish(ed);
  });
})();
</script>
"""
