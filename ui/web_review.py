"""The Review tab: what a labelling team's reviewer does. Assign runs to annotators with an overlap k, settle the
runs annotators disagree on (a final label with a reason, which the exports use), and see each annotator's
progress, time per item and agreement (Cohen's κ).

Everyone may look; assigning and adjudicating are for reviewers and admins, checked on the server
(``ui.access.require_role``) in every handler, whatever the page shows. Storage is ``storage.team``.
"""

from __future__ import annotations

import html
from typing import Any

import gradio as gr

from agents.runtime import Maestro
from storage import team
from ui import render
from ui.access import access_of, require_role
from ui.web_ask import image_file
from ui.web_rate_form import VERDICTS

ANY = "(any)"
QUEUE_HEADERS = ["run id", "question", "answer", "labels", "state"]
DASHBOARD_HEADERS = ["annotator", "done", "assigned", "assigned done", "time per item", "Cohen's κ with others"]


def _labels(item: team.Disagreement) -> str:
    return "; ".join(f"{name}: {verdict}" + (f" ({corrected})" if corrected else "")
                     for name, (verdict, corrected) in sorted(item.labels.items()))


def queue_rows(maestro: Maestro) -> tuple[list[list[str]], str]:
    items = team.disagreements(maestro.store)
    rows = [[d.run_id, d.question, d.answer or "", _labels(d), "changed since settled" if d.reopened else "open"]
            for d in items]
    line = (f"{len(items)} run{'s' if len(items) != 1 else ''} where annotators disagree and no final label "
            f"settles it yet." if items else "No disagreements to settle.")
    return rows, line


def dashboard_rows(maestro: Maestro) -> list[list[str]]:
    rows = []
    for s in team.annotator_stats(maestro.store):
        pace = "-" if s.seconds_per_item is None else render.ms(s.seconds_per_item * 1000)
        kappas = ", ".join(f"{other} {'n/a' if k is None else f'{k:.2f}'}" for other, k in s.kappa.items()) or "-"
        rows.append([s.name, str(s.done), str(s.assigned), str(s.assigned_done), pace, kappas])
    return rows


def case_text(maestro: Maestro, run_id: str) -> str:
    """The run under review: question, answer, and each annotator's label with their comment and boxes."""
    record = maestro.store.get_run(run_id) if run_id else None
    if record is None:
        return "Pick a run from the queue."
    lines = [f"**Question:** {render.plain_text(record.question)}  ", render.outcome_text(record) + "  ",
             f"<sub>run {record.id} · [open in Replay](?run={record.id})</sub>"]
    for rating in record.ratings:
        if rating.step_index is not None:
            continue
        extra = [f"corrected: {render.md_escape(rating.corrected_answer)}"] if rating.corrected_answer else []
        extra += [f"“{render.md_escape(rating.comment)}”"] if rating.comment else []
        extra += [f"{len(rating.boxes)} box correction{'s' if len(rating.boxes) != 1 else ''}"] if rating.boxes else []
        lines.append(f"- **{render.md_escape(rating.rater)}**: {rating.verdict}"
                     + (f" · {' · '.join(extra)}" if extra else ""))
    final = team.final_label(maestro.store, record.id)
    if final is not None:
        lines.append(f"- **final label** by {render.md_escape(final.reviewer)}: {final.verdict}"
                     + (f" · answer {render.md_escape(final.final_answer)}" if final.final_answer else "")
                     + f" · because {render.md_escape(final.reason)}")
    return "\n".join(lines)


def assign_runs(maestro: Maestro, dataset: str | None, run_id: str, names: str, k: float | None,
                request: gr.Request | None) -> str:
    """Assign the runs in scope (one run id, or the finished runs of an evaluation set, or all finished runs)."""
    reviewer = require_role(maestro, request, "reviewer", "assign runs")
    annotators = [n.strip() for n in (names or "").replace(";", ",").split(",") if n.strip()]
    store = maestro.store
    if run_id.strip():
        runs = [run_id.strip().lower()]
    else:
        chosen = None if not dataset or dataset == ANY else dataset
        runs = [r.id for r in store.list_runs(limit=100_000, dataset=chosen) if r.status in ("done", "abstained")]
    try:
        added = team.assign(store, runs, annotators, int(k or 0), by=reviewer)
    except (KeyError, ValueError) as exc:
        return f"Not assigned: {html.escape(str(exc.args[0] if exc.args else exc))}"
    return (f"Assigned {len(runs)} run{'s' if len(runs) != 1 else ''} with overlap {int(k or 0)} among "
            f"{', '.join(annotators)}: {added} new assignment{'s' if added != 1 else ''}.")


def settle(maestro: Maestro, run_id: str, verdict: str | None, answer: str, reason: str, boxes_from: str | None,
           request: gr.Request | None) -> str:
    reviewer = require_role(maestro, request, "reviewer", "adjudicate")
    if not run_id:
        return "Pick a run from the queue first."
    mine = maestro.store.rating_of(run_id, boxes_from) if boxes_from and boxes_from != "(none)" else None
    try:
        final = team.adjudicate(maestro.store, run_id, reviewer=reviewer, verdict=verdict or "",
                                final_answer=answer, reason=reason, boxes=list(mine.boxes) if mine else [])
    except (KeyError, ValueError) as exc:
        return f"Not saved: {html.escape(str(exc.args[0] if exc.args else exc))}"
    return f"Final label saved: **{final.verdict}** for run `{run_id}` by {render.md_escape(reviewer)}."


def build_review_tab(maestro: Maestro) -> dict[str, Any]:
    """The Review tab; returns its refresher (for the tab's select event)."""
    store = maestro.store
    gr.Markdown("Reviewers assign runs and settle disagreements; the final label is what every export uses. "
                "Annotators see this page but cannot change it.", elem_id="review-intro")
    with gr.Accordion("Assign runs (overlap k: how many annotators rate each run)", open=False,
                      elem_id="review-assign"):
        with gr.Row():
            dataset = gr.Dropdown([ANY, *store.list_datasets()], value=ANY, label="Evaluation set", scale=2,
                                  elem_id="review-dataset")
            one_run = gr.Textbox(label="or one run id", scale=2, max_lines=1, elem_id="review-run")
            names = gr.Textbox(label="Annotators (comma-separated)", scale=3, max_lines=1,
                               elem_id="review-annotators")
            overlap = gr.Number(value=2, precision=0, minimum=1, label="Overlap k", scale=1,
                                elem_id="review-overlap")
        assign = gr.Button("Assign", size="sm", elem_id="review-assign-button")
        assigned = gr.Markdown(elem_id="review-assigned")
    with gr.Row(equal_height=True):
        gr.Markdown("### Disagreements")
        refresh_button = gr.Button("Refresh", size="sm", elem_id="review-refresh", scale=0, min_width=100)
    caption = gr.Markdown(elem_id="review-caption")
    queue = gr.Dataframe(headers=QUEUE_HEADERS, datatype="str", type="array", interactive=False, wrap=False,
                         elem_id="review-queue", max_height=300)
    with gr.Row():
        with gr.Column(scale=3):
            case = gr.Markdown("Pick a run from the queue.", elem_id="review-case")
            chat = gr.Chatbot(label="Run", height=360, elem_id="review-chat", feedback_options=None,
                              group_consecutive_messages=False, autoscroll=False)
        with gr.Column(scale=2):
            current = gr.Textbox(label="Run being settled", interactive=False, max_lines=1, elem_id="review-run-id")
            verdict = gr.Radio(VERDICTS, label="Final verdict", elem_id="review-verdict")
            answer = gr.Textbox(label="Final answer (when the run's answer is wrong)", max_lines=3,
                                elem_id="review-answer")
            reason = gr.Textbox(label="Reason (required)", lines=2, elem_id="review-reason")
            boxes_from = gr.Dropdown(["(none)"], value="(none)", label="Box corrections to keep",
                                     elem_id="review-boxes-from")
            save = gr.Button("Save final label", variant="primary", elem_id="review-save")
            saved = gr.Markdown(elem_id="review-saved")
    gr.Markdown("### Annotators")
    dashboard = gr.Dataframe(headers=DASHBOARD_HEADERS, datatype="str", type="array", interactive=False,
                             elem_id="review-dashboard")

    def refresh() -> tuple[Any, ...]:
        rows, line = queue_rows(maestro)
        return rows, line, dashboard_rows(maestro), gr.Dropdown(choices=[ANY, *store.list_datasets()])

    outputs = [queue, caption, dashboard, dataset]
    refresh_button.click(refresh, None, outputs, concurrency_limit=None, api_visibility="private")

    def pick(event: gr.SelectData) -> tuple[Any, ...]:
        row = event.row_value or []
        rid = str(row[0]) if row else ""
        record = store.get_run(rid) if rid else None
        drew = [r.rater for r in (record.ratings if record else []) if r.boxes and r.step_index is None]
        return (rid, case_text(maestro, rid), render.render_run(record, image_file(maestro)) if record else [],
                gr.Radio(value=None), "", "", gr.Dropdown(choices=["(none)", *drew], value="(none)"), "")

    queue.select(pick, None, [current, case, chat, verdict, answer, reason, boxes_from, saved],
                 concurrency_limit=None, api_visibility="private")

    def do_assign(ds: str, rid: str, who: str, k: float | None, request: gr.Request) -> tuple[Any, ...]:
        return (assign_runs(maestro, ds, rid or "", who, k, request), *refresh())

    assign.click(do_assign, [dataset, one_run, names, overlap], [assigned, *outputs], concurrency_limit=None,
                 api_name="review_assign")

    def do_settle(rid: str, v: str | None, a: str, why: str, source: str | None,
                  request: gr.Request) -> tuple[Any, ...]:
        return (settle(maestro, rid, v, a, why, source, request), case_text(maestro, rid), *refresh())

    save.click(do_settle, [current, verdict, answer, reason, boxes_from], [saved, case, *outputs],
               concurrency_limit=None, api_name="review_adjudicate")

    def load_names() -> str:
        return ", ".join(n for n, role in access_of(maestro).accounts.roles().items() if role == "annotator")

    return {"refresh": refresh, "outputs": outputs, "names": names, "load_names": load_names}
