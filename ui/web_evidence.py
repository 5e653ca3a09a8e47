"""The evidence viewer shown under a run (Ask, Replay, Rate): every tool's image at a readable size, zoomable, with
the boxes' coordinates in a table, and a waterfall of the steps and tool calls with their durations.

Evidence first: the boxes whose text the answer contains (``answer_boxes``) come first in the table, marked and
highlighted, and the gallery starts with the answer's evidence: the image cropped to those boxes (with a
margin), enlarged when small. One line says what the run's confidence means (a calibrated probability).

``EvidencePanel.build()`` lays the components out (call inside a tab); ``panel.values(run)`` gives their values
for a stored run (``storage.RunRecord``) and ``panel.outputs`` the components to send them to. The functions
below it are plain (run in, data out) so they can be tested without a page.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import gradio as gr
from PIL import Image

from ui.render import ImageFile, ms

if TYPE_CHECKING:
    from storage import RunRecord

BOX_HEADERS = ["evidence", "step", "tool", "label", "x0", "y0", "x1", "y1", "score"]
#: The answer's crop shows at least this many pixels across (small boxes are enlarged to it).
CROP_MIN_PX = 480
CONFIDENCE_NOTE = ("**Confidence {value:.2f}** is a calibrated probability that the answer is right: of answers "
                   "given with about this confidence, about {percent:.0f} in 100 were right on held-out checks. "
                   "It is not the tools' box scores in the table.")
_WORD = re.compile(r"[a-z0-9]+")
#: Keys whose value names what a box holds, in order of preference.
_LABEL_KEYS = ("text", "label", "kind", "name", "target")


def evidence_items(run: RunRecord, image_file: ImageFile) -> list[tuple[str, str]]:
    """(image path, caption) per tool image and skill artifact, in step order."""
    items: list[tuple[str, str]] = []
    for step in run.steps:
        for call in step.tool_calls:
            path = image_file(call.image_id) if call.image_id else None
            if path is not None:
                boxes = len(_boxes(call.data))
                extra = f" · {boxes} box{'es' if boxes != 1 else ''}" if boxes else ""
                items.append((str(path), f"Step {step.index + 1} · {call.tool}{extra} · {call.summary[:160]}"))
        for n, image_id in enumerate(getattr(step, "artifacts", []) or [], 1):
            path = image_file(image_id)
            if path is not None:
                items.append((str(path), f"Step {step.index + 1} · image {n} the skill produced (crop or view)"))
    return items


def _boxes(data: Any) -> list[tuple[str, list[float], Any]]:
    """Every (label, [x0, y0, x1, y1], score) found in a tool's result data, however deeply nested."""
    found: list[tuple[str, list[float], Any]] = []

    def is_box(value: Any) -> bool:
        return (isinstance(value, list | tuple) and len(value) == 4
                and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value))

    def walk(value: Any, label: str) -> None:
        if isinstance(value, dict):
            name = next((str(value[k]) for k in _LABEL_KEYS if isinstance(value.get(k), str | int)), label)
            if is_box(value.get("box")):
                found.append((name, list(value["box"]), value.get("score", value.get("confidence"))))
            for key, inner in value.items():
                if key == "boxes" and isinstance(inner, list) and all(is_box(b) for b in inner):
                    found.extend((name, list(b), None) for b in inner)
                elif key != "box":
                    walk(inner, name)
        elif isinstance(value, list):
            for inner in value:
                walk(inner, label)

    walk(data, "")
    return found


def _words(text: str | None) -> str:
    return " ".join(_WORD.findall((text or "").lower()))


def _supports(label: str, answer: str) -> bool:
    """Whether a box's text is part of the answer (or the answer part of it), compared word by word."""
    label_words = _words(label)
    return bool(label_words and answer) and (f" {label_words} " in f" {answer} " or f" {answer} " in f" {label_words} ")


def all_boxes(run: RunRecord) -> list[tuple[int, str, str, list[float], Any]]:
    """(step index, tool, label, box, score) for every box a tool reported, in step order."""
    return [(step.index, call.tool, label, box, score) for step in run.steps for call in step.tool_calls
            for label, box, score in _boxes(call.data)]


def answer_boxes(run: RunRecord) -> list[tuple[str, list[float]]]:
    """(label, box) of the boxes whose text the run's answer contains: the answer's evidence."""
    answer = _words(run.answer)
    found = [(label, box) for _, _, label, box, _ in all_boxes(run) if _supports(label, answer)]
    return list({(label, tuple(box)): (label, box) for label, box in found}.values())


def box_rows(run: RunRecord) -> list[list[Any]]:
    """One row per box a tool reported: step, tool, label and the box in original-image pixels; the answer's
    boxes first, marked ``answer``."""
    answer = _words(run.answer)
    rows = [["answer" if _supports(label, answer) else "", index + 1, tool, label, round(x0), round(y0), round(x1),
             round(y1), "" if score is None else f"{float(score):.2f}"]
            for index, tool, label, (x0, y0, x1, y1), score in all_boxes(run)]
    return sorted(rows, key=lambda row: row[0] != "answer")  # stable: step order within each group


def box_table(run: RunRecord) -> Any:
    """``box_rows`` as a styled table: the answer's rows highlighted."""
    import pandas as pd  # imported on first use: pandas takes a while to load

    frame = pd.DataFrame(box_rows(run), columns=BOX_HEADERS)
    if frame.empty:
        return frame

    def paint(row: Any) -> list[str]:
        return ["background-color: #fff3c4; font-weight: 600" if row["evidence"] == "answer" else ""] * len(row)

    return frame.style.apply(paint, axis=1)


def answer_crop(run: RunRecord, image_file: ImageFile) -> tuple[Image.Image, str] | None:
    """The run's image cropped to the answer's boxes (a margin around their union), enlarged when small."""
    found = answer_boxes(run)
    path = image_file(run.image_id) if found else None
    if path is None:
        return None
    with Image.open(path) as opened:
        image = opened.convert("RGB")
    x0 = min(b[0] for _, b in found)
    y0 = min(b[1] for _, b in found)
    x1 = max(b[2] for _, b in found)
    y1 = max(b[3] for _, b in found)
    margin = max(12.0, 0.15 * max(x1 - x0, y1 - y0))
    box = (max(0, int(x0 - margin)), max(0, int(y0 - margin)), min(image.width, int(x1 + margin) + 1),
           min(image.height, int(y1 + margin) + 1))
    if box[2] <= box[0] or box[3] <= box[1]:
        return None
    crop = image.crop(box)
    if crop.width < CROP_MIN_PX:
        scale = CROP_MIN_PX / crop.width
        crop = crop.resize((CROP_MIN_PX, max(1, round(crop.height * scale))), Image.Resampling.LANCZOS)
    labels = ", ".join(label for label, _ in found[:3])
    return crop, f"The answer's evidence · {labels[:160]} · pixels {box[0]}-{box[2]} x {box[1]}-{box[3]}"


def confidence_line(run: RunRecord) -> str:
    if run.confidence is None or run.status != "done":
        return ""
    return CONFIDENCE_NOTE.format(value=run.confidence, percent=100 * run.confidence)


@dataclass
class _Bar:
    label: str
    start_ms: float
    length_ms: float
    kind: str


def _bars(run: RunRecord) -> list[_Bar]:
    """Each step and each of its tool calls as a bar on one time line starting at the run's start. A step's row is
    committed when it ends, so it started ``latency_ms`` before ``created_at``; its tool calls follow its policy
    turn one after another."""
    bars: list[_Bar] = []
    origin = run.created_at
    for step in run.steps:
        end = step.created_at or origin
        start = (end - origin - timedelta(milliseconds=step.latency_ms or 0.0)).total_seconds() * 1000
        start = max(0.0, start)
        what = f"{step.model}@@{step.skill}" if step.kind == "search" else step.kind
        bars.append(_Bar(f"Step {step.index + 1} · {what}", start, step.latency_ms or 0.0, step.kind))
        at = start + (step.policy_ms or 0.0)
        for call in step.tool_calls:
            bars.append(_Bar(f"   {call.tool}", at, call.latency_ms or 0.0, "tool"))
            at += call.latency_ms or 0.0
    return bars


def timeline_html(run: RunRecord) -> str:
    """A waterfall: one row per step and tool call, bars placed and sized by time, durations written out."""
    bars = _bars(run)
    if not bars:
        return "<p class='mae-timeline-empty'>No steps recorded.</p>"
    total = max(max(b.start_ms + b.length_ms for b in bars), float(run.latency_ms or 0.0), 1.0)
    rows = []
    for bar in bars:
        left = 100.0 * bar.start_ms / total
        width = max(0.4, 100.0 * bar.length_ms / total)
        rows.append(
            f"<div class='mae-row'><span class='mae-label'>{html.escape(bar.label)}</span>"
            f"<span class='mae-track'><span class='mae-bar mae-{bar.kind}' style='left:{left:.2f}%;"
            f"width:{min(width, 100.0 - left):.2f}%'></span></span>"
            f"<span class='mae-ms'>{html.escape(ms(bar.length_ms))}</span></div>")
    head = f"<div class='mae-total'>Run took {html.escape(ms(run.latency_ms))}</div>"
    return f"<div class='mae-timeline'>{head}{''.join(rows)}</div>"


TIMELINE_CSS = """
.mae-timeline { font-size: 0.85em; }
.mae-row { display: flex; align-items: center; gap: 8px; margin: 2px 0; }
.mae-label { flex: 0 0 32%; white-space: pre; overflow: hidden; text-overflow: ellipsis; }
.mae-track { position: relative; flex: 1; height: 14px; background: rgba(128,128,128,0.12); border-radius: 3px; }
.mae-bar { position: absolute; top: 0; bottom: 0; border-radius: 3px; background: #4a7fd4; }
.mae-bar.mae-tool { background: #e3a33b; } .mae-bar.mae-answer { background: #3aa76d; }
.mae-ms { flex: 0 0 70px; text-align: right; font-variant-numeric: tabular-nums; }
"""


@dataclass
class EvidencePanel:
    """The viewer's components for one tab (``prefix`` makes their element ids unique on the page)."""

    prefix: str
    image_file: ImageFile
    outputs: list[Any] = field(default_factory=list)

    def build(self) -> EvidencePanel:
        with gr.Accordion("Evidence and timeline", open=True, elem_id=f"{self.prefix}-evidence"):
            confidence = gr.Markdown(elem_id=f"{self.prefix}-confidence")
            gallery = gr.Gallery(label="Tool images (click one to enlarge; full screen to zoom)", columns=2,
                                 height=520, object_fit="contain", allow_preview=True, preview=False,
                                 elem_id=f"{self.prefix}-gallery", buttons=["fullscreen", "download"])
            boxes = gr.Dataframe(headers=BOX_HEADERS, type="array", interactive=False, label="Boxes (pixels)",
                                 elem_id=f"{self.prefix}-boxes", max_height=260)
            timeline = gr.HTML(elem_id=f"{self.prefix}-timeline", label="Timeline")
        self.outputs = [confidence, gallery, boxes, timeline]
        return self

    def values(self, run: RunRecord | None) -> list[Any]:
        if run is None:
            return ["", [], [], ""]
        # The answer's evidence leads the gallery. Not opened as a preview: Gradio focuses the previewed
        # thumbnail, which would scroll the page away from the form and take the focus from the verdict.
        crop = answer_crop(run, self.image_file)
        items = [*([crop] if crop is not None else []), *evidence_items(run, self.image_file)]
        return [confidence_line(run), items, box_table(run), timeline_html(run)]
