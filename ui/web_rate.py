"""The Rate tab: an annotation queue of unrated finished runs, a verdict form, and the history of ratings.

The rater's name is the login name (``gr.Request.username``), ``anonymous`` without ``--auth``. Keyboard shortcuts
(bound in ``ui.web.SHORTCUTS_JS`` while this tab is visible): 1/2/3 pick correct/incorrect/partial, N loads the next
run, S skips it, Ctrl+Enter saves. Every saved rating also goes to the skill handbook at once
(``ui.web_handbook.feedback``).
"""

from __future__ import annotations

import json
from typing import Any

import gradio as gr

from agents.runtime import Maestro
from ui import render, web_handbook
from ui.web_ask import image_file, rater_name
from ui.web_queries import count_ratings, recent_ratings

VERDICTS = ["correct", "incorrect", "partial"]
#: Marks an annotator can put on a step; stored in the rating's ``step_marks`` as {step index: [marks]}.
STEP_MARKS = ["good call", "wrong model", "wrong skill", "bad tool output"]
HISTORY_HEADERS = ["rated at", "rater", "verdict", "question", "answer", "corrected", "comment", "step marks",
                   "run id"]
HISTORY_SIZE = 50


def next_unrated(maestro: Maestro, order: str, skipped: list[str]) -> tuple[str, list[gr.ChatMessage], str,
                                                                             list[tuple[str, str]]]:
    """The next run to rate (not among ``skipped``): its id, chat, a header line and the step-mark choices."""
    candidates = maestro.store.unrated_runs(limit=len(skipped) + 1, order=order)
    pick = next((r for r in candidates if r.id not in skipped), None)
    if pick is None:
        note = " (some were skipped this session)" if skipped else ""
        return "", [], f"🎉 Nothing left to rate{note}.", []
    record = maestro.store.get_run(pick.id)
    if record is None:
        return "", [], "The run disappeared; load the next one.", []
    choices = [(f"Step {s.index + 1} ({s.model}@@{s.skill}): {mark}" if s.kind == "search"
                else f"Step {s.index + 1} ({s.kind}): {mark}", f"{s.index}:{mark}")
               for s in record.steps for mark in STEP_MARKS]
    left = maestro.store.count_runs(status="done", rating="unrated")
    header = (f"**Question:** {render.md_escape(record.question)}  \n**Answer:** {render.md_escape(record.answer)}"
              f"  \n<sub>run {record.id} · {left} unrated run{'s' if left != 1 else ''} in the queue</sub>")
    return record.id, render.render_run(record, image_file(maestro)), header, choices


def parse_marks(values: list[str] | None) -> dict[str, list[str]]:
    """``["0:good call", "1:wrong skill"]`` -> ``{"0": ["good call"], "1": ["wrong skill"]}`` (unknown marks dropped)."""
    marks: dict[str, list[str]] = {}
    for value in values or []:
        index, _, mark = str(value).partition(":")
        if index.isdigit() and mark in STEP_MARKS:
            marks.setdefault(index, []).append(mark)
    return marks


def submit_rating(maestro: Maestro, run_id: str, verdict: str | None, corrected: str, marks: list[str] | None,
                  comment: str, rater: str) -> str:
    """Store the form; returns a line for the page (an explanation instead of an exception on bad input)."""
    if not run_id:
        return "Load a run first (N)."
    if verdict not in VERDICTS:
        return "Pick a verdict first: 1 correct, 2 incorrect, 3 partial."
    maestro.store.add_rating(run_id, rater=rater, verdict=verdict, corrected_answer=(corrected or "").strip() or None,
                             comment=(comment or "").strip() or None, step_marks=parse_marks(marks))
    learned = web_handbook.feedback(maestro, run_id)
    return f"Saved **{verdict}** for run `{run_id}` as {render.md_escape(rater)}.{learned}"


def history_rows(maestro: Maestro) -> tuple[list[list[str]], str]:
    rows = recent_ratings(maestro.store, limit=HISTORY_SIZE)
    table = [[r.created_at.strftime("%Y-%m-%d %H:%M:%S"), r.rater, r.verdict, r.question, r.answer or "",
              r.corrected_answer or "", r.comment or "", json.dumps(r.step_marks) if r.step_marks else "", r.run_id]
             for r in rows]
    total = count_ratings(maestro.store)
    return table, f"{total} rating{'s' if total != 1 else ''} in total; the newest {min(total, HISTORY_SIZE)} below."


def build_rate_tab(maestro: Maestro) -> dict[str, Any]:
    """The Rate tab's components and events; returns the history refresher for the tab's select event."""
    skipped = gr.State([])
    with gr.Row():
        order = gr.Radio(["oldest", "random"], value="oldest", label="Queue order", scale=1)
        next_button = gr.Button("Next unrated (N)", variant="primary", elem_id="rate-next", scale=1)
        skip_button = gr.Button("Skip (S)", elem_id="rate-skip", scale=1)
    header = gr.Markdown("Press **Next unrated** (or N) to load a run.", elem_id="rate-header")
    current = gr.Textbox(label="Run being rated", interactive=False, max_lines=1, elem_id="rate-run-id")
    with gr.Row():
        with gr.Column(scale=3):
            chat = gr.Chatbot(label="Run to rate", height=520, elem_id="rate-chat", feedback_options=None,
                              group_consecutive_messages=False)
        with gr.Column(scale=2):
            verdict = gr.Radio(VERDICTS, label="Verdict (1 / 2 / 3)", elem_id="rate-verdict")
            corrected = gr.Textbox(label="Corrected answer", max_lines=3, elem_id="rate-corrected")
            marks = gr.CheckboxGroup([], label="Step marks", elem_id="rate-marks")
            comment = gr.Textbox(label="Comment", lines=2, elem_id="rate-comment")
            save = gr.Button("Save rating (Ctrl+Enter)", variant="primary", elem_id="rate-submit")
            saved = gr.Markdown(elem_id="rate-saved")
    gr.Markdown("### History of ratings")
    history_caption = gr.Markdown(elem_id="rate-history-caption")
    history = gr.Dataframe(headers=HISTORY_HEADERS, datatype="str", type="array", interactive=False, wrap=True,
                           elem_id="rate-history", max_height=400,
                           column_widths=["12%", "8%", "8%", "20%", "12%", "12%", "12%", "8%", "8%"])

    def load(order_value: str, skip_list: list[str]) -> tuple[Any, ...]:
        rid, messages, line, choices = next_unrated(maestro, order_value, skip_list)
        return (rid, messages, line, gr.CheckboxGroup(choices=choices, value=[]), gr.Radio(value=None), "", "")

    form_reset = [current, chat, header, marks, verdict, corrected, comment]
    next_button.click(load, [order, skipped], form_reset, concurrency_limit=None, api_name="rate_next")

    def skip(order_value: str, skip_list: list[str], rid: str) -> tuple[Any, ...]:
        skip_list = [*skip_list, rid] if rid else list(skip_list)
        return (skip_list, *load(order_value, skip_list))

    skip_button.click(skip, [order, skipped, current], [skipped, *form_reset], concurrency_limit=None,
                      api_name=False)

    def refresh_history() -> tuple[Any, ...]:
        return history_rows(maestro)

    def save_form(rid: str, verdict_value: str | None, corrected_value: str, mark_values: list[str] | None,
                  comment_value: str, order_value: str, skip_list: list[str], request: gr.Request) -> tuple[Any, ...]:
        line = submit_rating(maestro, rid, verdict_value, corrected_value, mark_values, comment_value,
                             rater_name(request))
        if not line.startswith("Saved"):
            return (line, *[gr.skip()] * len(form_reset), *[gr.skip()] * 2)
        return (line, *load(order_value, skip_list), *refresh_history())

    save.click(save_form, [current, verdict, corrected, marks, comment, order, skipped],
               [saved, *form_reset, history, history_caption], concurrency_limit=None, api_name="rate_save")
    return {"refresh_history": refresh_history, "history_outputs": [history, history_caption]}
