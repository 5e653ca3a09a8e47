"""Two runs side by side (the Compare tab) and "Rerun…" under Replay: run a stored run again under a chosen
registry, then see it beside the original with every difference highlighted.

The view is built from ``agents.replay.diff``: one row per step, run A left and run B right; a row whose step differs
is marked (``cmp-changed``) and so is each field that differs (``cmp-diff``): the pair, the query, each tool call's
output and evidence image, the observation, the settled answer; the outcome rows at the top likewise. Timings are
shown, never highlighted. Every text is HTML-escaped; images come from the image store, already on the app's
allowed paths. Registries offered for a rerun are the app's own and the YAML files in ``assets/registries/`` and
``<data-dir>/registries/``: a web user cannot point the app at any other file (a registry can load skill code).
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from agents.registry import DEFAULT_REGISTRY, Registry, load_registry
from agents.replay.diff import RunDiff, diff_runs, step_title
from agents.replay.rerun import TOOLS_MODES, find_run, rerun, reuse_count, tools_mode
from agents.runtime import Maestro, build_policy
from storage import RunRecord, Step, ToolCall

READY_REGISTRIES = DEFAULT_REGISTRY.parent / "registries"
DIFF = " class='cmp-diff'"
ImageUrl = Callable[[str | None], str | None]
CSS = """
<style>
.cmp-table { width: 100%; border-collapse: collapse; table-layout: fixed; }
.cmp-table td, .cmp-table th { vertical-align: top; padding: 6px 8px; border-bottom: 1px solid #ddd; }
.cmp-table th { text-align: left; }
.cmp-changed > td { background: #fff8e1; }
.cmp-diff { background: #ffd54f; border-radius: 3px; padding: 0 2px; }
img.cmp-diff { outline: 3px solid #f57c00; }
.cmp-field { margin: 2px 0; }
.cmp-label { color: #666; }
.cmp-table img { max-width: 100%; max-height: 220px; display: block; margin: 4px 0; }
.cmp-reused { color: #2e7d32; font-size: 0.85em; }
.cmp-table pre { white-space: pre-wrap; margin: 2px 0; font-size: 0.85em; }
</style>
"""


@dataclass
class RegistryChoice:
    label: str
    path: Path


def registry_choices(maestro: Maestro) -> list[RegistryChoice]:
    """The registries a web user may rerun under: the app's own first, then the ready and the data directory's."""
    own = Path(maestro.registry.path).resolve()
    found = [RegistryChoice(f"this app's registry ({own.name})", own)]
    for folder in (READY_REGISTRIES, Path(maestro.store.data_dir) / "registries"):
        for path in sorted(folder.glob("*.y*ml")) if folder.is_dir() else []:
            if path.resolve() != own:
                found.append(RegistryChoice(f"{path.name} ({folder.name}/)", path.resolve()))
    return found


class Rerunner:
    """Reruns stored runs under a chosen registry; each registry is loaded once (per file version)."""

    def __init__(self, maestro: Maestro) -> None:
        self.maestro = maestro
        self._loaded: dict[tuple[Path, float], Maestro] = {}
        self._lock = threading.Lock()

    def app_for(self, path: Path) -> Maestro:
        if path.resolve() == Path(self.maestro.registry.path).resolve():
            return self.maestro
        key = (path, path.stat().st_mtime)
        with self._lock:
            if key not in self._loaded:
                registry: Registry = load_registry(path, self.maestro.settings.skills_paths)
                self._loaded[key] = Maestro(self.maestro.settings, registry, self.maestro.store,
                                            build_policy(registry, self.maestro.store))
            return self._loaded[key]


def compare(maestro: Maestro, run_a: str, run_b: str) -> tuple[str, str]:
    """(headline Markdown, side-by-side HTML) for two stored runs, or a message saying why not."""
    try:
        a, b = find_run(maestro.store, run_a), find_run(maestro.store, run_b)
    except KeyError as exc:
        return f"Error: {html.escape(str(exc.args[0] if exc.args else exc))}", ""
    diff = diff_runs(a, b)
    verdict = "**Identical apart from timings.**" if diff.identical else \
        f"**Differs:** {html.escape(diff.headline())}."
    related = " Run B reruns run A." if diff.related == "b reruns a" else \
        " Run A reruns run B." if diff.related == "a reruns b" else ""
    return verdict + related, render_comparison(maestro, a, b, diff)


def render_comparison(maestro: Maestro, a: RunRecord, b: RunRecord, diff: RunDiff) -> str:
    """The side-by-side table: the outcome first, then one row per step."""
    image_url = _image_url(maestro)
    rows = [f"<tr><th></th><th>Run A · <a href='?run={a.id}'>{a.id[:12]}</a></th>"
            f"<th>Run B · <a href='?run={b.id}'>{b.id[:12]}</a></th></tr>"]
    outcome_changed = bool(diff.run)
    rows.append(f"<tr class='{'cmp-changed' if outcome_changed else 'cmp-same'}' data-row='outcome'>"
                f"<td>outcome</td><td>{_outcome(a, diff.run)}</td><td>{_outcome(b, diff.run)}</td></tr>")
    for step_diff in diff.steps:
        left, right = _at(a.steps, step_diff.index), _at(b.steps, step_diff.index)
        changed = set(step_diff.differences)
        cls = "cmp-same" if step_diff.same else "cmp-changed"
        rows.append(f"<tr class='{cls}' data-step='{step_diff.index + 1}'><td>step {step_diff.index + 1}</td>"
                    f"<td>{_step_cell(left, changed, step_diff.only_in == 'a', image_url)}</td>"
                    f"<td>{_step_cell(right, changed, step_diff.only_in == 'b', image_url)}</td></tr>")
    return CSS + f"<table class='cmp-table' id='compare-table'>{''.join(rows)}</table>"


def _at(steps: list[Step], index: int) -> Step | None:
    return steps[index] if index < len(steps) else None


def _outcome(run: RunRecord, changed: dict[str, Any]) -> str:
    said = run.answer if run.status == "done" else run.reason or run.error or ""
    parts = [_field("status", run.status, "status" in changed),
             _field("answer" if run.status == "done" else "reason", said,
                    bool({"answer", "reason", "error"} & set(changed))),
             _field("confidence", "-" if run.confidence is None else f"{run.confidence:.2f}",
                    "confidence" in changed),
             f"<div class='cmp-field'><span class='cmp-label'>latency</span> {run.latency_ms or 0:.0f} ms · "
             f"registry {html.escape(run.registry_hash)}</div>"]
    return "".join(parts)


def _field(label: str, value: Any, differs: bool, *, pre: bool = False) -> str:
    text = html.escape("" if value is None else str(value))
    mark = DIFF if differs else ""
    body = f"<pre{mark}>{text}</pre>" if pre else f"<span{mark}>{text}</span>"
    return f"<div class='cmp-field'><span class='cmp-label'>{label}</span> {body}</div>"


def _step_cell(step: Step | None, changed: set[str], alone: bool, image_url: ImageUrl) -> str:
    if step is None:
        return "<em>(no such step)</em>"
    title = html.escape(step_title(step) or step.kind)
    out = [f"<div class='cmp-field'><strong{DIFF if alone else ''}>{title}</strong>"
           f" <span class='cmp-label'>{step.latency_ms:.0f} ms</span></div>"]
    if {"model", "skill", "level2", "kind"} & changed:
        out.append(_field("pair", f"{step.model}@@{step.skill} · {step.level2}", True))
    if "think" in changed:  # the policy's reasoning is long; shown only where it differs
        out.append(_field("think", step.think, True))
    for name in ("query", "settled_answer", "confidence", "missing", "error", "answer"):
        value = getattr(step, name)
        if value is not None or name in changed:
            out.append(_field(name.replace("_", " "), value, name in changed))
    for call in step.tool_calls:
        out.append(_call_html(call, changed, image_url))
    for image_id in step.artifacts:
        url = image_url(image_id)
        if url:
            mark = DIFF if "artifacts" in changed else ""
            out.append(f"<img{mark} src='{url}' alt='image the skill produced'>")
    if step.observation:
        out.append(_field("observation", step.observation, "observation" in changed, pre=True))
    return "".join(out)


def _call_html(call: ToolCall, changed: set[str], image_url: ImageUrl) -> str:
    prefix = f"tool_calls[{call.index}]"
    differs = {name.split(".", 1)[1] for name in changed if name.startswith(prefix + ".")} | (
        {"tool"} if prefix in changed else set())
    reused = " <span class='cmp-reused'>(reused)</span>" if call.reused else ""
    out = [f"<div class='cmp-field'><span class='cmp-label'>tool</span> "
           f"<span{DIFF if 'tool' in differs else ''}>{html.escape(call.tool)}</span>{reused}</div>",
           _field("output", call.summary, bool({"summary", "data", "error"} & differs))]
    url = image_url(call.image_id) if call.image_id else None
    if url:
        mark = DIFF if "image_id" in differs else ""
        out.append(f"<img{mark} src='{url}' alt='evidence from {html.escape(call.tool)}'>")
    return "".join(out)


def _image_url(maestro: Maestro) -> ImageUrl:
    def url(image_id: str | None) -> str | None:
        try:
            path = maestro.store.images.path(image_id or "")
        except (ValueError, FileNotFoundError):
            return None
        return "/gradio_api/file=" + html.escape(str(path), quote=True)

    return url


def build_compare_tab(maestro: Maestro) -> dict[str, Any]:
    """The Compare tab: two run ids and the side-by-side view."""
    gr.Markdown("Two stored runs side by side: every step, with what differs highlighted.")
    with gr.Row():
        run_a = gr.Textbox(label="Run A", max_lines=1, scale=3, elem_id="compare-run-a")
        run_b = gr.Textbox(label="Run B", max_lines=1, scale=3, elem_id="compare-run-b")
        button = gr.Button("Compare", variant="primary", scale=1, elem_id="compare-button")
    headline = gr.Markdown(elem_id="compare-headline")
    view = gr.HTML(elem_id="compare-view")
    button.click(lambda a, b: compare(maestro, a, b), [run_a, run_b], [headline, view], concurrency_limit=None,
                 api_name="compare_runs")
    return {"run_a": run_a, "run_b": run_b, "headline": headline, "view": view}


class RerunPanel:
    """"Rerun…" under Replay: the open run again under a chosen registry, then both runs side by side. Built
    inside the Replay tab; ``connect`` wires it once the Compare tab exists."""

    def __init__(self, maestro: Maestro) -> None:
        self.maestro = maestro
        self.choices = registry_choices(maestro)
        self.rerunner = Rerunner(maestro)
        with gr.Accordion("Rerun…", open=False, elem_id="rerun-panel"):
            with gr.Row():
                self.registry = gr.Dropdown([c.label for c in self.choices], value=self.choices[0].label,
                                            label="Registry", scale=3, elem_id="rerun-registry")
                self.tools = gr.Radio(list(TOOLS_MODES), value="cached", label="Tool outputs", scale=2,
                                      info="cached: reuse the stored output of every matching tool call",
                                      elem_id="rerun-tools")
                self.button = gr.Button("Rerun", scale=1, elem_id="rerun-button")
            self.status = gr.Markdown(elem_id="rerun-status")

    def run_again(self, source_id: str, label: str, mode: str) -> tuple[Any, ...]:
        """Rerun ``source_id``; (status line, run A, run B, headline, view, tab to show)."""
        unchanged = (gr.skip(),) * 5
        chosen = next((c for c in self.choices if c.label == label), None)
        if chosen is None or mode not in TOOLS_MODES:
            return ("Error: Choose one of the listed registries and a tools mode.", *unchanged)
        try:
            source = find_run(self.maestro.store, source_id)
            result = rerun(self.rerunner.app_for(chosen.path), source, tools=tools_mode(mode))
        except (KeyError, ValueError, OSError) as exc:
            return (f"Error: {html.escape(str(exc.args[0] if exc.args else exc))}", *unchanged)
        headline, view = compare(self.maestro, source.id, result.id or "")
        line = (f"Rerun stored as `{result.id}` ({result.status}; {reuse_count(result)}) under "
                f"{html.escape(chosen.label)}.")
        return line, source.id, result.id, headline, view, gr.Tabs(selected="compare")

    def connect(self, run_id: gr.Textbox, compare_tab: dict[str, Any], tabs: gr.Tabs) -> None:
        self.button.click(self.run_again, [run_id, self.registry, self.tools],
                          [self.status, compare_tab["run_a"], compare_tab["run_b"], compare_tab["headline"],
                           compare_tab["view"], tabs], concurrency_limit=1, api_name="rerun")
