"""The Rate tab's verdict form: laid out so that Save shows without scrolling on a 1280×800 screen, with step
marks driven by keys and a box editor for corrected evidence.

Order, top to bottom: the run id, the verdict (1 / 2 / 3), the corrected answer (C) or "No correction known", a
one-line comment, Save
(Ctrl+Enter) and its message; below Save the parts that grow with the run: step marks (``[`` and ``]`` pick the
step, G good call, M wrong model, K wrong skill, B bad tool output; ``ui.web_assets``), the box editor
(``ui.web_boxes``: its hidden JSON field is saved with the rating) and the panel for rating one step.
``RateForm.values(record, mine)`` fills the form for a run and the annotator's own rating of it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import gradio as gr

from agents.runtime import Maestro
from ui.web_ask import image_file
from ui.web_boxes import editor_html
from ui.web_evidence import all_boxes, answer_boxes

if TYPE_CHECKING:
    from storage import RatingRecord, RunRecord

VERDICTS = ["correct", "incorrect", "partial"]
#: Marks an annotator can put on a step; stored in the rating's ``step_marks`` as {step index: [marks]}.
STEP_MARKS = ["good call", "wrong model", "wrong skill", "bad tool output"]
#: The key that toggles each mark on the chosen step (``ui.web_assets.SHORTCUTS_JS``).
MARK_KEYS = {"g": "good call", "m": "wrong model", "k": "wrong skill", "b": "bad tool output"}
MARKS_LABEL = "Step marks: [ and ] pick the step · G good call · M wrong model · K wrong skill · B bad tool output"
BOXES_ID = "rate-box-json"


def step_choices(record: RunRecord) -> list[tuple[str, str]]:
    return [(f"Step {s.index + 1} ({s.model}@@{s.skill}): {mark}" if s.kind == "search"
             else f"Step {s.index + 1} ({s.kind}): {mark}", f"{s.index}:{mark}")
            for s in record.steps for mark in STEP_MARKS]


def marks_values(marks: dict[str, list[str]]) -> list[str]:
    return [f"{index}:{mark}" for index, names in marks.items() for mark in names]


def box_editor(maestro: Maestro, record: RunRecord | None, boxes: list[dict[str, Any]]) -> str:
    """The box editor for ``record``'s image with ``boxes`` drawn; the answer's tool boxes are offered first."""
    if record is None:
        return editor_html(None, None, [], [], BOXES_ID)
    info = maestro.store.image_info(record.image_id)
    path = image_file(maestro)(record.image_id)
    suggestions = answer_boxes(record)
    suggestions += [(label, box) for _, _, label, box, _ in all_boxes(record) if (label, box) not in suggestions]
    return editor_html(path, (info.width, info.height) if info else None, boxes, suggestions, BOXES_ID)


@dataclass
class RateForm:
    """The form's components (``build`` inside the form column) and how to fill them."""

    maestro: Maestro

    def build(self) -> RateForm:
        # The run's id is in the header above the run; this box carries it for the events (and the page's keys).
        self.current = gr.Textbox(label="Run being rated", interactive=False, max_lines=1, elem_id="rate-run-id",
                                  elem_classes=["mae-hidden"])
        self.verdict = gr.Radio(VERDICTS, label="Verdict (1 / 2 / 3)", elem_id="rate-verdict")
        self.corrected = gr.Textbox(label="Corrected answer (C)", max_lines=3, elem_id="rate-corrected")
        self.no_correction = gr.Checkbox(label="No correction known (incorrect, but the right answer is unknown)",
                                         elem_id="rate-no-correction")
        self.comment = gr.Textbox(label="Comment", lines=1, max_lines=4, elem_id="rate-comment")
        self.save = gr.Button("Save rating (Ctrl+Enter)", variant="primary", elem_id="rate-submit")
        self.saved = gr.Markdown(elem_id="rate-saved")
        self.marks = gr.CheckboxGroup([], label=MARKS_LABEL, elem_id="rate-marks")
        with gr.Accordion("Correct the boxes: draw, move or resize on the image", open=False,
                          elem_id="rate-box-panel"):
            self.editor = gr.HTML(box_editor(self.maestro, None, []), elem_id="rate-box-editor")
        # The editor's boxes as JSON, written by the page's script; hidden, but in the page so events can read it.
        self.boxes = gr.Textbox("[]", elem_id=BOXES_ID, elem_classes=["mae-hidden"], show_label=False,
                                container=False)
        with gr.Accordion("Rate one step", open=False, elem_id="rate-step-panel"):
            self.step_pick = gr.Dropdown([], label="Step", elem_id="rate-step")
            self.step_verdict = gr.Radio(VERDICTS, label="Step verdict", elem_id="rate-step-verdict")
            self.step_save = gr.Button("Save step rating", size="sm", elem_id="rate-step-save")
        return self

    @property
    def outputs(self) -> list[Any]:
        """What ``values`` fills, in order."""
        return [self.current, self.marks, self.verdict, self.corrected, self.comment, self.step_pick,
                self.no_correction, self.editor, self.boxes]

    @property
    def inputs(self) -> list[Any]:
        """What a save reads, in order: run id, verdict, corrected answer, marks, comment (the boxes come last)."""
        return [self.current, self.verdict, self.corrected, self.marks, self.comment]

    def values(self, record: RunRecord | None, mine: RatingRecord | None) -> tuple[Any, ...]:
        if record is None:
            return ("", gr.CheckboxGroup(choices=[], value=[]), gr.Radio(value=None), "", "",
                    gr.Dropdown(choices=[], value=None), False, box_editor(self.maestro, None, []), "[]")
        boxes = list(mine.boxes) if mine else []
        steps = [(f"Step {s.index + 1} ({s.kind})", s.index) for s in record.steps]
        return (record.id,
                gr.CheckboxGroup(choices=step_choices(record), value=marks_values(mine.step_marks) if mine else []),
                gr.Radio(value=mine.verdict if mine else None), (mine.corrected_answer or "") if mine else "",
                (mine.comment or "") if mine else "", gr.Dropdown(choices=steps, value=None),
                bool(mine and mine.verdict == "incorrect" and not mine.corrected_answer),
                box_editor(self.maestro, record, boxes), json.dumps(boxes))
