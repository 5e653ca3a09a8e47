"""The evidence viewer shown under a run (Ask, Replay, Rate): every tool's image at a readable size, zoomable, with
the boxes' coordinates in a table, and a waterfall of the steps and tool calls with their durations.

``EvidencePanel.build()`` lays the components out (call inside a tab); ``panel.values(run)`` gives their values
for a stored run (``storage.RunRecord``) and ``panel.outputs`` the components to send them to. The functions
below it are plain (run in, data out) so they can be tested without a page.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import gradio as gr

from ui.render import ImageFile, ms

if TYPE_CHECKING:
    from storage import RunRecord

BOX_HEADERS = ["step", "tool", "label", "x0", "y0", "x1", "y1", "score"]
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


def box_rows(run: RunRecord) -> list[list[Any]]:
    """One row per box a tool reported: step, tool, label and the box in original-image pixels."""
    rows = []
    for step in run.steps:
        for call in step.tool_calls:
            for label, (x0, y0, x1, y1), score in _boxes(call.data):
                rows.append([step.index + 1, call.tool, label, round(x0), round(y0), round(x1), round(y1),
                             "" if score is None else f"{float(score):.2f}"])
    return rows


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
            gallery = gr.Gallery(label="Tool images (click one to enlarge; full screen to zoom)", columns=2,
                                 height=520, object_fit="contain", allow_preview=True, preview=False,
                                 elem_id=f"{self.prefix}-gallery", buttons=["fullscreen", "download"])
            boxes = gr.Dataframe(headers=BOX_HEADERS, type="array", interactive=False, label="Boxes (pixels)",
                                 elem_id=f"{self.prefix}-boxes", max_height=260)
            timeline = gr.HTML(elem_id=f"{self.prefix}-timeline", label="Timeline")
        self.outputs = [gallery, boxes, timeline]
        return self

    def values(self, run: RunRecord | None) -> list[Any]:
        if run is None:
            return [[], [], ""]
        return [evidence_items(run, self.image_file), box_rows(run), timeline_html(run)]
