"""The Replay tab: a filterable, paginated table of past runs; picking one re-renders it from storage alone.

A run opens by clicking its row, by typing its id, or by a deep link ``/?run=<id>`` read when the page loads.
Rendering goes through ``ui.render.render_run``, the same function the live Ask tab uses.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import gradio as gr

from agents.runtime import Maestro
from ui import render
from ui.web_ask import image_file

PAGE_SIZE = 20
ANY = "(any)"
STATUSES = [ANY, "done", "failed", "interrupted", "running"]
RATINGS = [ANY, "correct", "incorrect", "partial", "unrated"]
HEADERS = ["created", "status", "rating", "calls", "question", "answer", "latency", "run id"]
_RUN_ID = re.compile(r"^[0-9a-f]{32}$")


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
    lines = [f"**Run** `{record.id}` · {record.created_at:%Y-%m-%d %H:%M:%S} · policy {render.md_escape(record.policy)}"
             f" · registry `{record.registry_hash}` · [link](?run={record.id})"]
    for rating in record.ratings:
        corrected = f" · corrected: {render.md_escape(rating.corrected_answer)}" if rating.corrected_answer else ""
        comment = f" · “{render.md_escape(rating.comment)}”" if rating.comment else ""
        lines.append(f"- rated **{rating.verdict}** by {render.md_escape(rating.rater)} "
                     f"({rating.created_at:%Y-%m-%d %H:%M}){corrected}{comment}")
    if not record.ratings:
        lines.append("- not rated yet")
    return render.render_run(record, image_file(maestro)), "\n".join(lines)


def build_replay_tab(maestro: Maestro) -> dict[str, Any]:
    """The Replay tab's components and events; returns the components the page's deep-link loader fills."""
    registry = maestro.registry
    with gr.Row():
        text = gr.Textbox(label="Search question or answer", scale=3, elem_id="replay-search")
        status = gr.Dropdown(STATUSES, value=ANY, label="Status", scale=1)
        skill = gr.Dropdown([ANY, *(s.spec.name for s in registry.skills)], value=ANY, label="Skill", scale=1)
        model = gr.Dropdown([ANY, *(e.name for e in registry.experts)], value=ANY, label="Model", scale=1)
        rating = gr.Dropdown(RATINGS, value=ANY, label="Rating", scale=1)
    with gr.Row():
        search = gr.Button("Search", variant="primary", size="sm", elem_id="replay-search-button")
        prev = gr.Button("◀ Previous", size="sm")
        following = gr.Button("Next ▶", size="sm")
        page = gr.Number(value=1, label="Page", precision=0, minimum=1, min_width=80)
        caption = gr.Markdown(elem_id="replay-caption")
    table = gr.Dataframe(headers=HEADERS, datatype="str", type="array", interactive=False, wrap=True,
                         elem_id="replay-table", max_height=420, column_widths=["11%", "7%", "7%", "14%", "27%",
                                                                                   "14%", "7%", "13%"])
    gr.Markdown("Click a row to open the run, or paste a run id:")
    with gr.Row():
        run_id = gr.Textbox(label="Run id", scale=4, max_lines=1, elem_id="replay-run-id")
        open_button = gr.Button("Open", scale=1, elem_id="replay-open")
    info = gr.Markdown(elem_id="replay-info")
    chat = gr.Chatbot(label="Replay", height=620, elem_id="replay-chat", feedback_options=None,
                      group_consecutive_messages=False)

    filter_inputs = [text, status, skill, model, rating]

    def refresh(t: str, st: str, sk: str, mo: str, ra: str, pg: float | None) -> tuple[Any, ...]:
        rows, number, _, line = table_page(maestro, Filters(t, st, sk, mo, ra), int(pg or 1))
        return rows, number, line

    def step(delta: int) -> Any:
        def handler(t: str, st: str, sk: str, mo: str, ra: str, pg: float | None) -> tuple[Any, ...]:
            return refresh(t, st, sk, mo, ra, int(pg or 1) + delta)
        return handler

    page_outputs = [table, page, caption]
    search.click(lambda *a: refresh(*a[:-1], 1), [*filter_inputs, page], page_outputs, concurrency_limit=None,
                 api_name=False)
    page.submit(refresh, [*filter_inputs, page], page_outputs, concurrency_limit=None, api_name="list_runs")
    text.submit(lambda *a: refresh(*a[:-1], 1), [*filter_inputs, page], page_outputs, concurrency_limit=None,
                api_name=False)
    for dropdown in (status, skill, model, rating):
        dropdown.change(lambda *a: refresh(*a[:-1], 1), [*filter_inputs, page], page_outputs,
                        concurrency_limit=None, api_name=False)
    prev.click(step(-1), [*filter_inputs, page], page_outputs, concurrency_limit=None, api_name=False)
    following.click(step(1), [*filter_inputs, page], page_outputs, concurrency_limit=None, api_name=False)

    def on_select(event: gr.SelectData) -> tuple[Any, ...]:
        row = event.row_value or []
        rid = str(row[-1]) if row else ""
        messages, line = open_run(maestro, rid)
        return rid, messages, line

    table.select(on_select, None, [run_id, chat, info], concurrency_limit=None, api_name=False)
    open_button.click(lambda rid: open_run(maestro, rid), run_id, [chat, info], concurrency_limit=None,
                      api_name="replay")
    run_id.submit(lambda rid: open_run(maestro, rid), run_id, [chat, info], concurrency_limit=None, api_name=False)
    return {"refresh": refresh, "filters": filter_inputs, "page": page, "page_outputs": page_outputs,
            "run_id": run_id, "chat": chat, "info": info}
