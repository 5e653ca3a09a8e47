"""The Replay tab: a filterable, paginated table of past runs; picking one re-renders it from storage alone.

A run opens by clicking its row, by typing its id, or by a deep link ``/?run=<id>`` read when the page loads; the
page's address then always carries the open run (``?run=<id>``, so copying it shares the run) and the run is
scrolled to the top of the window, its question first. Table rows stay one line high: long questions and answers
are cut with an ellipsis, the full text shows on hover. Rendering goes through ``ui.render.render_run``, the same function the live
Ask tab uses, followed by the evidence viewer (``ui.web_evidence``).

Later controls plug in through ``REPLAY_CONTROLS``: each builder is called inside the row under the run id with
the ``ReplayView`` (the open run's id box and the components that show a run), and wires its own events.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import gradio as gr

from agents.runtime import Maestro
from storage import run_agreement
from ui import render
from ui.web_ask import image_file
from ui.web_evidence import EvidencePanel

if TYPE_CHECKING:
    from storage import RunRecord

PAGE_SIZE = 20
ANY = "(any)"
STATUSES = [ANY, "done", "abstained", "failed", "cancelled", "interrupted", "running"]
RATINGS = [ANY, "correct", "incorrect", "partial", "unrated"]
HEADERS = ["created", "status", "rating", "calls", "question", "answer", "latency", "run id"]
_RUN_ID = re.compile(r"^[0-9a-f]{32}$")

# Runs in the browser after a run opened: put it in the address (shareable, survives a reload) and scroll it to the
# top of the window. An empty or malformed id leaves the address alone.
SHOW_RUN_JS = """
(runId) => {
  if (!/^[0-9a-f]{32}$/.test(runId || '')) return;
  const url = new URL(window.location.href);
  if (url.searchParams.get('run') !== runId) { url.searchParams.set('run', runId); history.replaceState(null, '', url); }
  // The tab and the run render over a few frames: scroll until the run's header stays at the top (1.5 s at most).
  let tries = 0;
  const settle = () => {
    const top = document.querySelector('#replay-info');
    if (!top) return;
    if (Math.abs(top.getBoundingClientRect().top) < 4 && tries > 2) return;
    top.scrollIntoView({block: 'start'});
    if (++tries < 10) setTimeout(settle, 150);
  };
  setTimeout(settle, 50);
}
"""


@dataclass
class ReplayView:
    """What a Replay control can use: the open run's id box, and the components (with how to fill them) that
    show a run, so a control can open another run (e.g. a rerun) the same way the table does."""

    maestro: Maestro
    run_id: Any
    outputs: list[Any] = field(default_factory=list)
    show: Callable[[str], tuple[Any, ...]] = lambda rid: ()
    show_js: str = SHOW_RUN_JS


#: Extra controls under the run id: (builder) called inside a ``gr.Row`` with the ``ReplayView``.
REPLAY_CONTROLS: list[Callable[[ReplayView], None]] = []


@dataclass
class Filters:
    text: str = ""
    status: str = ANY
    skill: str = ANY
    model: str = ANY
    rating: str = ANY

    def as_kwargs(self) -> dict[str, str | None]:
        def pick(value: str) -> str | None:
            return None if not value or value == ANY else value

        return {"text": (self.text or "").strip() or None, "status": pick(self.status), "skill": pick(self.skill),
                "model": pick(self.model), "rating": pick(self.rating)}


def table_page(maestro: Maestro, filters: Filters, page: int) -> tuple[list[list[Any]], int, int, str]:
    """Rows of one page, the (clamped) page number, the page count, and a caption like ``41 runs · page 2/3``."""
    kwargs = filters.as_kwargs()
    total = maestro.store.count_runs(**kwargs)
    pages = max(1, math.ceil(total / PAGE_SIZE))
    page = min(max(1, int(page or 1)), pages)
    rows = maestro.store.list_runs(limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE, **kwargs)
    table = [[r.created_at.strftime("%Y-%m-%d %H:%M:%S"), r.status, r.rating or "-",
              ", ".join(f"{m}@@{s}" for m, s in zip(r.models, r.skills, strict=False)), r.question,
              "" if r.answer is None else r.answer, render.ms(r.latency_ms) if r.latency_ms is not None else "-", r.id]
             for r in rows]
    return table, page, pages, f"{total} run{'s' if total != 1 else ''} · page {page}/{pages}"


def open_run(maestro: Maestro, run_id: str) -> tuple[list[gr.ChatMessage], str]:
    """The chat of a stored run and a line about it (ratings included), or a message saying why not."""
    run_id = (run_id or "").strip().lower()
    if not _RUN_ID.match(run_id):
        return [], "Not a run id: run ids are 32 hexadecimal characters."
    record = maestro.store.get_run(run_id)
    if record is None:
        return [], f"No run {run_id} in this data directory."
    return render.render_run(record, image_file(maestro)), info_text(record)


def info_text(record: RunRecord) -> str:
    """The line above a replayed run: id, status, link, and every live rating with the annotators' agreement."""
    lines = [f"**Question:** {render.plain_text(record.question)}  ",
             f"**Run** `{record.id}` · **{record.status}** · {record.created_at:%Y-%m-%d %H:%M:%S} · policy "
             f"{render.md_escape(record.policy)} · registry `{record.registry_hash}` · [link](?run={record.id})"]
    for rating in record.ratings:
        corrected = f" · corrected: {render.md_escape(rating.corrected_answer)}" if rating.corrected_answer else ""
        comment = f" · “{render.md_escape(rating.comment)}”" if rating.comment else ""
        what = f"step {rating.step_index + 1} " if rating.step_index is not None else ""
        when = rating.updated_at or rating.created_at
        lines.append(f"- {what}rated **{rating.verdict}** by {render.md_escape(rating.rater)} "
                     f"({when:%Y-%m-%d %H:%M}){corrected}{comment}")
    if not record.ratings:
        lines.append("- not rated yet")
    verdicts, agree = run_agreement(record.ratings)
    if agree is not None:
        lines.append(f"- annotators {'agree' if agree else '**disagree**'}: " + ", ".join(
            f"{render.md_escape(r)} {v}" for r, v in sorted(verdicts.items())))
    return "\n".join(lines)


def build_replay_tab(maestro: Maestro) -> dict[str, Any]:
    """The Replay tab's components and events; returns the components the page's deep-link loader fills."""
    registry = maestro.registry
    with gr.Row():
        text = gr.Textbox(label="Search question or answer", scale=3, elem_id="replay-search")
        status = gr.Dropdown(STATUSES, value=ANY, label="Status", scale=1, elem_id="replay-status")
        skill = gr.Dropdown([ANY, *(s.spec.name for s in registry.skills)], value=ANY, label="Skill", scale=1)
        model = gr.Dropdown([ANY, *(e.name for e in registry.experts)], value=ANY, label="Model", scale=1)
        rating = gr.Dropdown(RATINGS, value=ANY, label="Rating", scale=1)
    with gr.Row():
        search = gr.Button("Search", variant="primary", size="sm", elem_id="replay-search-button")
        prev = gr.Button("◀ Previous", size="sm")
        following = gr.Button("Next ▶", size="sm")
        page = gr.Number(value=1, label="Page", precision=0, minimum=1, min_width=80)
        caption = gr.Markdown(elem_id="replay-caption")
    # One line per row (``ui.web_assets``: cut with an ellipsis, the full text in each cell's hover title).
    table = gr.Dataframe(headers=HEADERS, datatype="str", type="array", interactive=False, wrap=False,
                         elem_id="replay-table", max_height=420, column_widths=["11%", "7%", "7%", "14%", "27%",
                                                                                   "14%", "7%", "13%"])
    gr.Markdown("Click a row to open the run, or paste a run id. The address always carries the open run: "
                "copy it to share the run.")
    with gr.Row(elem_id="replay-controls"):
        run_id = gr.Textbox(label="Run id", scale=4, max_lines=1, elem_id="replay-run-id")
        open_button = gr.Button("Open", scale=1, elem_id="replay-open")
    info = gr.Markdown(elem_id="replay-info")
    chat = gr.Chatbot(label="Replay", height=620, elem_id="replay-chat", feedback_options=None,
                      group_consecutive_messages=False, autoscroll=False)  # opens at the question
    evidence = EvidencePanel("replay", image_file(maestro)).build()

    def show(rid: str) -> tuple[Any, ...]:
        messages, line = open_run(maestro, rid)
        record = maestro.store.get_run((rid or "").strip().lower()) if messages else None
        return (messages, line, *evidence.values(record))

    shown = [chat, info, *evidence.outputs]
    view = ReplayView(maestro, run_id, shown, show)
    if REPLAY_CONTROLS:
        with gr.Row(elem_id="replay-extra-controls"):
            for builder in REPLAY_CONTROLS:
                builder(view)

    filter_inputs = [text, status, skill, model, rating]

    def refresh(t: str, st: str, sk: str, mo: str, ra: str, pg: float | None) -> tuple[Any, ...]:
        rows, number, _, line = table_page(maestro, Filters(t, st, sk, mo, ra), int(pg or 1))
        return rows, number, line

    def step(delta: int) -> Any:
        def handler(t: str, st: str, sk: str, mo: str, ra: str, pg: float | None) -> tuple[Any, ...]:
            return refresh(t, st, sk, mo, ra, int(pg or 1) + delta)
        return handler

    def first_page(t: str, st: str, sk: str, mo: str, ra: str, _pg: float | None) -> tuple[Any, ...]:
        return refresh(t, st, sk, mo, ra, 1)

    page_outputs = [table, page, caption]
    search.click(first_page, [*filter_inputs, page], page_outputs, concurrency_limit=None,
                 api_visibility="private")
    page.submit(refresh, [*filter_inputs, page], page_outputs, concurrency_limit=None, api_name="list_runs")
    text.submit(first_page, [*filter_inputs, page], page_outputs, concurrency_limit=None,
                api_visibility="private")
    for dropdown in (status, skill, model, rating):
        dropdown.change(first_page, [*filter_inputs, page], page_outputs, concurrency_limit=None,
                        api_visibility="private")
    prev.click(step(-1), [*filter_inputs, page], page_outputs, concurrency_limit=None,
               api_visibility="private")
    following.click(step(1), [*filter_inputs, page], page_outputs, concurrency_limit=None,
                    api_visibility="private")

    def on_select(event: gr.SelectData) -> tuple[Any, ...]:
        row = event.row_value or []
        rid = str(row[-1]) if row else ""
        return (rid, *show(rid))

    table.select(on_select, None, [run_id, *shown], concurrency_limit=None, api_visibility="private").then(
        None, run_id, None, js=SHOW_RUN_JS)
    open_button.click(lambda rid: open_run(maestro, rid), run_id, [chat, info], concurrency_limit=None,
                      api_name="replay").then(show, run_id, shown, concurrency_limit=None,
                                              api_visibility="private").then(None, run_id, None,
                                                                             js=SHOW_RUN_JS)
    run_id.submit(show, run_id, shown, concurrency_limit=None, api_visibility="private").then(
        None, run_id, None, js=SHOW_RUN_JS)
    return {"refresh": refresh, "filters": filter_inputs, "page": page, "page_outputs": page_outputs,
            "run_id": run_id, "shown": shown, "show": show, "show_js": SHOW_RUN_JS}
