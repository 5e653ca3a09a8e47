"""The Export tab: training files (SFT, DPO, KTO, GRPO, verl) from the stored runs and ratings, for download.

The work is ``agents.export.training_data.export_app``: it writes each format's JSONL and parquet files, the images and a
``manifest.json`` into ``<data dir>/exports/<timestamp>-<random>/``. This tab zips that folder beside it (the served
``exports`` folder is on the app's allowed paths) and offers the zip and the top-level files for download,
with the manifest's summary and a listing of what was written. Bad filters come back as a message, not a trace.
Exports hold every run and rating, so only admins may make them (``ui.access.require_role``); the tab is hidden
from everyone else.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

import gradio as gr

from agents.export.training_data import FORMATS, export_app
from agents.runtime import Maestro
from storage import RATING_FILTERS
from ui.access import require_role

log = logging.getLogger(__name__)

ANY = "(any)"
LISTING_HEADERS = ["file", "rows", "size"]


def exports_dir(maestro: Maestro) -> Path:
    """Where exports (and their zips) go: served for download, so it is on ``launch_options``' allowed paths."""
    return Path(maestro.store.data_dir) / "exports"


def _pick(value: str | None) -> str | None:
    value = (value or "").strip()
    return None if not value or value == ANY else value


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n:.1f} GB"


def listing(folder: Path, counts: dict[str, int]) -> list[list[str]]:
    """Top-level files with their row counts and sizes, and the images folder as one line."""
    rows = [[p.name, str(counts.get(p.name, "")), _size(p.stat().st_size)]
            for p in sorted(folder.iterdir()) if p.is_file() and not p.name.startswith(".")]
    images = folder / "images"
    if images.is_dir():
        files = [p for p in images.rglob("*") if p.is_file()]
        rows.append([f"images/ ({len(files)} files)", "", _size(sum(p.stat().st_size for p in files))])
    return rows


def run_export(maestro: Maestro, formats: list[str] | None, since: str | None, until: str | None,
               rating: str | None, skill: str | None, model: str | None,
               dataset: str | None) -> tuple[str, list[list[str]], list[str] | None]:
    """Export with the form's filters: (summary text, file listing, files to offer: the zip first)."""
    chosen = [f for f in (formats or []) if f in FORMATS]
    if not chosen:
        return "Error: Pick at least one format.", [], None
    try:
        manifest = export_app(maestro, None, formats=chosen, since=_pick(since), until=_pick(until),
                              rating=_pick(rating), skill=_pick(skill), model=_pick(model), dataset=_pick(dataset))
    except (ValueError, RuntimeError) as exc:  # bad filters, or a missing parquet writer: the person can act on it
        return f"Error: {exc}", [], None
    except Exception as exc:  # never a stack trace in the page
        log.exception("export failed")
        return f"Error: The export failed: {type(exc).__name__}: {exc}", [], None
    folder = Path(manifest.out_dir)
    archive = shutil.make_archive(str(folder), "zip", root_dir=folder)
    files = [archive] + [str(p) for p in sorted(folder.iterdir()) if p.is_file() and not p.name.startswith(".")]
    return manifest.summary(), listing(folder, manifest.counts), files


def build_export_tab(maestro: Maestro) -> dict[str, Any]:
    """The Export tab; returns the dataset-choice refresher for the tab's select event."""
    registry = maestro.registry
    gr.Markdown("Training data from stored runs and their ratings: SFT conversations with tool calls, DPO/KTO "
                "preference data, GRPO/verl prompts with ground truth (JSONL + parquet, images, `manifest.json`). "
                "Dates are ISO (`2026-11-21` or `2026-11-21T14:00`); empty filters mean all runs.")
    with gr.Row():
        formats = gr.CheckboxGroup(list(FORMATS), value=list(FORMATS), label="Formats", elem_id="export-formats")
    with gr.Row():
        since = gr.Textbox(label="Since (ISO date)", max_lines=1, elem_id="export-since")
        until = gr.Textbox(label="Until (ISO date)", max_lines=1, elem_id="export-until")
        rating = gr.Dropdown([ANY, *RATING_FILTERS], value=ANY, label="Rating (latest verdict)")
    with gr.Row():
        skill = gr.Dropdown([ANY, *(s.spec.name for s in registry.skills)], value=ANY, label="Skill")
        model = gr.Dropdown([ANY, *(e.name for e in registry.experts)], value=ANY, label="Model")
        dataset = gr.Dropdown([ANY, *maestro.store.list_datasets()], value=ANY, label="Evaluation set",
                              elem_id="export-dataset")
    go = gr.Button("Export", variant="primary", elem_id="export-button")
    summary = gr.Textbox(label="Summary", lines=6, interactive=False, elem_id="export-summary")
    files = gr.Dataframe(headers=LISTING_HEADERS, datatype="str", type="array", interactive=False,
                         elem_id="export-listing", label="Files written")
    download = gr.File(label="Download (the zip holds everything, images included)", file_count="multiple",
                       interactive=False, elem_id="export-download")

    def export(chosen: list[str] | None, since_value: str | None, until_value: str | None, rating_value: str | None,
               skill_value: str | None, model_value: str | None, dataset_value: str | None,
               request: gr.Request) -> tuple[Any, ...]:
        require_role(maestro, request, "admin", "export runs and ratings")
        return run_export(maestro, chosen, since_value, until_value, rating_value, skill_value, model_value,
                          dataset_value)

    go.click(export, [formats, since, until, rating, skill, model, dataset], [summary, files, download],
             concurrency_limit=1, concurrency_id="export", api_name="export")

    def datasets() -> Any:
        return gr.Dropdown(choices=[ANY, *maestro.store.list_datasets()])

    return {"refresh": datasets, "outputs": [dataset]}
