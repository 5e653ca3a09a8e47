"""The Rate tab: each annotator's queue of runs they have not rated, a verdict form made for the keyboard, undo,
progress, the team's guidelines, agreement between annotators, and the history of ratings.

The rater is the login name (``gr.Request.username``; ``anonymous`` without accounts). Every save goes through
``Store.add_rating`` — one live rating per annotator per run or step: rating a run again edits it, the old version
is kept — and on to the skill handbook (``ui.web_handbook.feedback``). Keys (``ui.web_assets.SHORTCUTS_JS``, while
this tab is visible; none of them while typing in a text box, except Ctrl+Enter): 1 / 2 / 3 pick correct /
incorrect / partial, C moves into the corrected answer, N loads the next run, S skips it, U undoes your last
rating, Ctrl+Enter saves. After a save
the next run loads with an empty form and the focus goes back to the verdict, never to a text box.

An abstained run is rated like an answer: *correct* means it was right not to answer, *incorrect* means it should
have answered — with that answer typed as the corrected answer. The guidelines are ``<data dir>/guidelines.md``,
shown in a panel as sanitized Markdown (``ui.safe_markdown``: no forms, inputs, buttons, iframes, scripts, images
or event handlers) and editable from it by admins only (``ui.access.require_role``; the editor is hidden from
everyone else). The panel is read from the file on every page load and every visit to the tab, never from when
the server started.
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gradio as gr

from agents.runtime import Maestro
from storage import run_agreement
from ui import render, web_handbook
from ui.access import require_role
from ui.safe_markdown import markdown_html
from ui.web_ask import image_file, rater_name
from ui.web_boxes import parse_boxes
from ui.web_evidence import EvidencePanel
from ui.web_rate_form import STEP_MARKS, VERDICTS, RateForm

if TYPE_CHECKING:
    from storage import RunRecord

HISTORY_HEADERS = ["rated at", "rater", "verdict", "question", "answer", "corrected", "comment", "step marks",
                   "run id"]
HISTORY_SIZE = 50
ANY = "(any)"
STATUS_CHOICES = [ANY, "done", "abstained"]
VERDICT_CHOICES = [ANY, "unrated", "correct", "incorrect", "partial"]
GUIDELINES_FILE = "guidelines.md"
GUIDELINES_LIMIT = 100_000
DEFAULT_GUIDELINES = """### Rating guidelines (edit me: this text is `guidelines.md` in the data directory)
- **correct** (1): the answer is right and in the form the question asks. For an abstention: it was right not to
  answer (the image really does not settle the question).
- **incorrect** (2): the answer is wrong — type the right one as the corrected answer, or tick "No correction
  known" when you cannot tell it. For an abstention: it should have answered — type the answer it should have given.
- **partial** (3): right in part (e.g. one of two values).
- Mark the steps that went wrong (wrong skill, wrong model, bad tool output); they teach the router.
"""
MEANING = {"done": "1 correct · 2 incorrect (type the right answer) · 3 partial",
           "abstained": "This run **abstained**: 1 correct = right to abstain · 2 incorrect = it should have "
                        "answered (type that answer) · 3 partial"}


def _pick(value: str | None) -> str | None:
    return None if not value or value == ANY else value


def guidelines_path(maestro: Maestro) -> Path:
    return Path(maestro.store.data_dir) / GUIDELINES_FILE


def read_guidelines(maestro: Maestro) -> str:
    path = guidelines_path(maestro)
    return path.read_text(encoding="utf-8") if path.is_file() else DEFAULT_GUIDELINES


def guidelines_html(maestro: Maestro) -> str:
    """The guidelines as sanitized HTML for the panel."""
    return f"<div class='mae-guidelines'>{markdown_html(read_guidelines(maestro))}</div>"


def save_guidelines(maestro: Maestro, text: str, request: gr.Request | None = None) -> str:
    """Write the guidelines file (atomically) if the caller is an admin; returns a line for the page."""
    require_role(maestro, request, "admin", "edit the guidelines")
    text = text or ""
    if len(text) > GUIDELINES_LIMIT:
        return f"Not saved: guidelines are at most {GUIDELINES_LIMIT // 1000} kB."
    path = guidelines_path(maestro)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return f"Saved the guidelines ({len(text)} characters) to `{path.name}` in the data directory."


def header_text(record: RunRecord, note: str = "") -> str:
    answer = (f"**Answer:** {render.plain_text(record.answer)}" if record.status == "done"
              else f"**No answer ({record.status}):** {render.plain_text(record.reason or record.error)}")
    return (f"**Question:** {render.plain_text(record.question)}  \n{answer}  \n{MEANING.get(record.status, '')}"
            f"  \n<sub>run {record.id}{note}</sub>")


def parse_marks(values: list[str] | None) -> dict[str, list[str]]:
    """``["0:good call", "1:wrong skill"]`` -> ``{"0": ["good call"], "1": ["wrong skill"]}`` (unknown marks dropped)."""
    marks: dict[str, list[str]] = {}
    for value in values or []:
        index, _, mark = str(value).partition(":")
        if index.isdigit() and mark in STEP_MARKS:
            marks.setdefault(index, []).append(mark)
    return marks


def agreement_line(maestro: Maestro, run_id: str) -> str:
    """Who rated this run how, and whether they agree (shown once the annotator has saved their own verdict)."""
    verdicts, agree = run_agreement(maestro.store.ratings_for(run_id))
    if agree is None:
        return ""
    names = ", ".join(f"{render.md_escape(r)} {v}" for r, v in sorted(verdicts.items()))
    return f" Annotators {'agree' if agree else '**disagree**'} on this run: {names}."


def agreement_text(maestro: Maestro) -> str:
    result = maestro.store.agreement()
    if not result.runs:
        return "Agreement: no run has been rated by two annotators yet."
    lines = [f"Agreement: **{result.agreeing} of {result.runs}** runs rated by two or more annotators agree "
             f"({result.share:.0%})."]
    for pair in result.pairs:
        kappa = "κ undefined (no variation)" if pair.kappa is None else f"Cohen's κ {pair.kappa:.2f}"
        lines.append(f"- {render.md_escape(pair.rater_a)} and {render.md_escape(pair.rater_b)}: {pair.agreeing} of "
                     f"{pair.runs} alike, {kappa}")
    return "\n".join(lines)


def progress_html(maestro: Maestro, rater: str, dataset: str | None, category: str | None,
                  status: str | None) -> str:
    done, total = maestro.store.rating_progress(rater, dataset=dataset, category=category, status=status)
    share = f" ({done / total:.0%})" if total else ""
    return (f"<div id='rate-progress-line'><progress value='{done}' max='{max(total, 1)}' style='width:35%'>"
            f"</progress> <b>{done} of {total} rated</b> by {html.escape(rater)}{share}</div>")


def submit_rating(maestro: Maestro, run_id: str, verdict: str | None, corrected: str, marks: list[str] | None,
                  comment: str, rater: str, step_index: int | None = None, no_correction: bool = False,
                  boxes: str | None = None) -> str:
    """Store the form; returns a line for the page (an explanation instead of an exception on bad input).
    ``boxes``: the box editor's JSON (box corrections in original pixels).

    A run rated incorrect needs its correction, or an explicit "No correction known": an incorrect verdict saved
    without either used to become a negative example with nothing to learn the right answer from."""
    if not run_id:
        return "Load a run first (N)."
    if verdict not in VERDICTS:
        return "Pick a verdict first: 1 correct, 2 incorrect, 3 partial."
    problem = correction_problem(verdict, corrected, no_correction) if step_index is None else None
    if problem:
        return problem
    before = maestro.store.rating_of(run_id, rater, step_index)
    try:
        maestro.store.add_rating(run_id, rater=rater, verdict=verdict, corrected_answer=corrected, comment=comment,
                                 step_marks=parse_marks(marks), step_index=step_index, boxes=parse_boxes(boxes))
    except (KeyError, ValueError) as exc:
        return f"Not saved: {render.md_escape(str(exc.args[0] if exc.args else exc))}"
    learned = web_handbook.feedback(maestro, run_id)
    what = f"step {step_index + 1} of run" if step_index is not None else "run"
    edited = " (your earlier rating was replaced; it stays in the history)" if before is not None else ""
    return (f"Saved **{verdict}** for {what} `{run_id}` as {render.md_escape(rater)}{edited}.{learned}"
            f"{agreement_line(maestro, run_id) if step_index is None else ''}")


def correction_problem(verdict: str, corrected: str | None, no_correction: bool) -> str | None:
    """Why a whole-run rating cannot be saved as given (None: it can): incorrect needs a correction or an explicit
    "no correction known", and not both."""
    given = bool((corrected or "").strip())
    if verdict == "incorrect" and not given and not no_correction:
        return ("This run is rated **incorrect**: type the right answer as the corrected answer (C), or tick "
                "**No correction known**.")
    if given and no_correction:
        return "A corrected answer is typed and **No correction known** is ticked: keep one of them."
    return None


def history_rows(maestro: Maestro) -> tuple[list[list[str]], str]:
    rows = maestro.store.recent_ratings(limit=HISTORY_SIZE)
    table = [[r.created_at.strftime("%Y-%m-%d %H:%M:%S"), r.rater,
              r.verdict if r.step_index is None else f"{r.verdict} (step {r.step_index + 1})", r.question,
              r.answer or "", r.corrected_answer or "", r.comment or "",
              json.dumps(r.step_marks) if r.step_marks else "", r.run_id] for r in rows]
    total = maestro.store.count_ratings()
    return table, (f"{total} live rating{'s' if total != 1 else ''} in total (replaced ones are kept in the "
                   f"history); the newest {min(total, HISTORY_SIZE)} below — click one to open it for editing.")


def build_rate_tab(maestro: Maestro) -> dict[str, Any]:
    """The Rate tab's components and events; returns what the tab's select event refreshes."""
    skipped = gr.State([])
    store = maestro.store
    with gr.Row(elem_id="rate-top", equal_height=True):
        next_button = gr.Button("Next unrated (N)", variant="primary", elem_id="rate-next", scale=2, size="sm")
        skip_button = gr.Button("Skip (S)", elem_id="rate-skip", scale=1, size="sm")
        undo_button = gr.Button("Undo my last (U)", elem_id="rate-undo", scale=1, size="sm")
        progress = gr.HTML(elem_id="rate-progress", scale=3)
    with gr.Row(elem_id="rate-panels"):
        with gr.Accordion("Queue filters", open=False, elem_id="rate-filters"), gr.Row():
            dataset = gr.Dropdown([ANY, *store.list_datasets()], value=ANY, label="Evaluation set",
                                  elem_id="rate-dataset")
            category = gr.Dropdown([ANY, *store.list_categories()], value=ANY, label="Category",
                                   elem_id="rate-category")
            status = gr.Dropdown(STATUS_CHOICES, value=ANY, label="Status", elem_id="rate-status")
            verdict_filter = gr.Dropdown(VERDICT_CHOICES, value=ANY, label="Others' verdict",
                                         elem_id="rate-verdict-filter")
            order = gr.Radio(["oldest", "random"], value="oldest", label="Queue order")
        with gr.Accordion("Guidelines", open=False, elem_id="rate-guidelines"):
            # Callables: evaluated on every page load, so a reload shows what is in the file now.
            guidelines = gr.HTML(lambda: guidelines_html(maestro), elem_id="rate-guidelines-text")
            with gr.Accordion("Edit the guidelines (admins)", open=False, visible=False,
                              elem_id="rate-guidelines-edit") as guidelines_edit:
                guidelines_editor = gr.Textbox(lambda: read_guidelines(maestro), lines=10, max_lines=30,
                                               show_label=False, elem_id="rate-guidelines-editor")
                guidelines_save = gr.Button("Save guidelines", size="sm", elem_id="rate-guidelines-save")
                guidelines_note = gr.Markdown()
    gr.Markdown("Keys: **N** next · **1** correct · **2** incorrect · **3** partial · **C** corrected answer · "
                "**Ctrl+Enter** save · **S** skip · **U** undo · **[ ]** step · **G M K B** step marks",
                elem_id="rate-keys")
    with gr.Row(elem_id="rate-main"):
        with gr.Column(scale=3, min_width=320):
            header = gr.Markdown("Press **Next unrated** (or N) to load a run.", elem_id="rate-header")
            chat = gr.Chatbot(label="Run to rate", height=460, elem_id="rate-chat", feedback_options=None,
                              group_consecutive_messages=False, autoscroll=False)
        with gr.Column(scale=2, min_width=300, elem_id="rate-form"):
            rate_form = RateForm(maestro).build()
    evidence = EvidencePanel("rate", image_file(maestro)).build()
    agreement = gr.Markdown(elem_id="rate-agreement")
    gr.Markdown("### History of ratings")
    history_caption = gr.Markdown(elem_id="rate-history-caption")
    history = gr.Dataframe(headers=HISTORY_HEADERS, datatype="str", type="array", interactive=False, wrap=True,
                           elem_id="rate-history", max_height=400,
                           column_widths=["12%", "8%", "8%", "20%", "12%", "12%", "12%", "8%", "8%"])

    current, saved = rate_form.current, rate_form.saved
    filters = [dataset, category, status, verdict_filter]
    # The API's order (``/rate_next``, ``/rate_save``): run id, chat, header, the form, the evidence, the boxes.
    form = [current, chat, header, *rate_form.outputs[1:7], *evidence.outputs, *rate_form.outputs[7:]]

    def form_for(run_id: str, rater: str, note: str = "") -> tuple[Any, ...]:
        """The form showing ``run_id`` with ``rater``'s own rating filled in (empty when they have none)."""
        record = store.get_run(run_id) if run_id else None
        mine = store.rating_of(run_id, rater) if record is not None else None
        values = rate_form.values(record, mine)
        if record is None:
            return (values[0], [], note or "The run was not found.", *values[1:7], *evidence.values(None),
                    *values[7:])
        return (values[0], render.render_run(record, image_file(maestro)), header_text(record, note), *values[1:7],
                *evidence.values(record), *values[7:])

    def next_form(rater: str, values: tuple[Any, ...], order_value: str, skip_list: list[str]) -> tuple[Any, ...]:
        ds, cat, st, vf = (_pick(v) for v in values)
        queue = store.rating_queue(rater, dataset=ds, category=cat, status=st, verdict=vf, order=order_value,
                                   exclude=skip_list, limit=1)
        bar = progress_html(maestro, rater, ds, cat, st)
        if not queue:
            note = " (some were skipped this session)" if skip_list else ""
            return (*form_for("", rater, f"Nothing left to rate{note}."), bar)
        return (*form_for(queue[0].id, rater), bar)

    def load(ds: str, cat: str, st: str, vf: str, order_value: str, skip_list: list[str],
             request: gr.Request) -> tuple[Any, ...]:
        return next_form(rater_name(request), (ds, cat, st, vf), order_value, skip_list)

    next_button.click(load, [*filters, order, skipped], [*form, progress], concurrency_limit=None,
                      api_name="rate_next")
    for box in filters:
        box.change(load, [*filters, order, skipped], [*form, progress], concurrency_limit=None,
                   api_visibility="private")

    def skip(ds: str, cat: str, st: str, vf: str, order_value: str, skip_list: list[str], rid: str,
             request: gr.Request) -> tuple[Any, ...]:
        skip_list = [*skip_list, rid] if rid else list(skip_list)
        return (skip_list, *next_form(rater_name(request), (ds, cat, st, vf), order_value, skip_list))

    skip_button.click(skip, [*filters, order, skipped, current], [skipped, *form, progress],
                      concurrency_limit=None, api_visibility="private")

    def side() -> tuple[Any, ...]:
        return (*history_rows(maestro), agreement_text(maestro))

    side_outputs = [history, history_caption, agreement]

    def refresh(ds: str, cat: str, st: str, vf: str, request: gr.Request) -> tuple[Any, ...]:
        # An admin may have edited the guidelines since this page loaded.
        return (*side(), progress_html(maestro, rater_name(request), _pick(ds), _pick(cat), _pick(st)),
                gr.Dropdown(choices=[ANY, *store.list_datasets()]),
                gr.Dropdown(choices=[ANY, *store.list_categories()]), guidelines_html(maestro),
                read_guidelines(maestro))

    refresh_outputs = [*side_outputs, progress, dataset, category, guidelines, guidelines_editor]

    def save_form(rid: str, verdict_value: str | None, corrected_value: str, mark_values: list[str] | None,
                  comment_value: str, ds: str, cat: str, st: str, vf: str, order_value: str,
                  skip_list: list[str], unknown: bool, boxes_value: str, request: gr.Request) -> tuple[Any, ...]:
        rater = rater_name(request)
        line = submit_rating(maestro, rid, verdict_value, corrected_value, mark_values, comment_value, rater,
                             no_correction=bool(unknown), boxes=boxes_value)
        if not line.startswith("Saved"):
            return (line, *[gr.skip()] * (len(form) + 1 + len(side_outputs)))
        return (line, *next_form(rater, (ds, cat, st, vf), order_value, skip_list), *side())

    # Optional last: "No correction known", then the boxes.
    save_inputs = [*rate_form.inputs, *filters, order, skipped, rate_form.no_correction, rate_form.boxes]
    rate_form.save.click(save_form, save_inputs, [saved, *form, progress, *side_outputs], concurrency_limit=None,
               api_name="rate_save").then(None, None, None, js=FOCUS_VERDICT_JS)

    def undo(ds: str, cat: str, st: str, vf: str, request: gr.Request) -> tuple[Any, ...]:
        rater = rater_name(request)
        undone = store.undo_last_rating(rater)
        bar = progress_html(maestro, rater, _pick(ds), _pick(cat), _pick(st))
        if undone is None:
            return ("Nothing to undo: you have no ratings.", *[gr.skip()] * len(form), bar, *side())
        web_handbook.feedback(maestro, undone.run_id)
        back = (f"back to your earlier **{undone.restored.verdict}**" if undone.restored
                else "the run is unrated by you again")
        line = f"Undid your **{undone.verdict}** rating of run `{undone.run_id}`: {back}. It is loaded below."
        return (line, *form_for(undone.run_id, rater, " · reopened by undo"), bar, *side())

    undo_button.click(undo, filters, [saved, *form, progress, *side_outputs], concurrency_limit=None,
                      api_name="rate_undo").then(None, None, None, js=FOCUS_VERDICT_JS)

    def save_step(rid: str, index: int | None, value: str | None, request: gr.Request) -> str:
        if index is None or index == "":
            return "Pick a step first."
        return submit_rating(maestro, rid, value, "", [], "", rater_name(request), step_index=int(index))

    rate_form.step_save.click(save_step, [current, rate_form.step_pick, rate_form.step_verdict], saved,
                              concurrency_limit=None, api_visibility="private")

    def open_from_history(event: gr.SelectData, request: gr.Request) -> tuple[Any, ...]:
        row = event.row_value or []
        rid = str(row[-1]) if row else ""
        return form_for(rid, rater_name(request), " · opened from the history: saving edits your rating")

    history.select(open_from_history, None, form, concurrency_limit=None, api_visibility="private")
    def store_guidelines(text: str, request: gr.Request) -> tuple[str, str]:
        return save_guidelines(maestro, text, request), guidelines_html(maestro)

    guidelines_save.click(store_guidelines, guidelines_editor, [guidelines_note, guidelines],
                          concurrency_limit=None, api_name="guidelines_save")
    return {"refresh": refresh, "refresh_inputs": filters, "refresh_outputs": refresh_outputs,
            "admin_only": [guidelines_edit]}


# After a save or an undo the focus leaves the text boxes (where the next "1" would be typed as text) and goes to
# the verdict choices, which the number keys drive.
FOCUS_VERDICT_JS = """
() => {
  const active = document.activeElement;
  if (active && active.blur) active.blur();
  const radio = document.querySelector('#rate-verdict input:checked') || document.querySelector('#rate-verdict input');
  if (radio) radio.focus({preventScroll: true});
}
"""
