"""The Handbook tab and the rating hook: what the learned router knows about each (expert, skill, Level-2) pair.

Per pair it shows the Beta(α, β) success posterior as a mean with a 90% credible interval (Beta quantiles from
scipy), the verdicts behind it, calls, and the measured mean latency, tokens and money per call, next to the
router's cost weight λ from the registry (``orchestrator.cost_weight``). ``feedback(maestro, run_id)`` is called
by the Ask and Rate tabs right after a rating is saved, so the next routed question already uses it; a failing
handbook never loses the rating itself. Rebuilding it from all ratings is for admins (``ui.access``).
"""

from __future__ import annotations

import logging
from typing import Any

import gradio as gr

from agents.runtime import Maestro
from ui.access import require_role
from ui.web_registry import SUCCESS_MEANS

try:  # the handbook is its own module; the page still works (without this tab's numbers) if it is missing
    from agents.routing import handbook as _handbook
except ImportError:  # pragma: no cover - only in a partial checkout
    _handbook = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

HEADERS = ["skill", "Level-2", "expert", "success", "90% interval", "verdicts", "runs", "calls", "latency / call",
           "tokens / call", "money / call"]
#: Two-sided credible interval shown beside each posterior mean.
INTERVAL = 0.90


def feedback(maestro: Maestro, run_id: str) -> str:
    """Feed a just-saved rating of ``run_id`` to the handbook; returns a short sentence for the page ("" when
    nothing changed). Errors are logged and reported, never raised: the rating is already stored."""
    hook = getattr(_handbook, "record_feedback", None)
    if hook is None:
        return ""
    try:
        touched = hook(maestro.store, run_id, maestro.registry)
    except Exception as exc:  # the rating is safe in storage; `maestro handbook rebuild` can catch up later
        log.exception("handbook feedback failed for run %s", run_id)
        return f" The handbook was not updated ({type(exc).__name__}: {exc})."
    n = len(touched or [])
    return f" The handbook learned from it ({n} pair{'s' if n != 1 else ''} updated)." if n else ""


def interval(alpha: float, beta: float, mass: float = INTERVAL) -> tuple[float, float]:
    """The equal-tailed ``mass`` credible interval of Beta(α, β)."""
    from scipy.stats import beta as beta_dist  # imported on first use: scipy.stats takes a while to load

    tail = (1.0 - mass) / 2
    low, high = beta_dist.ppf([tail, 1.0 - tail], alpha, beta)
    return float(low), float(high)


def handbook_table(maestro: Maestro, pooled: bool = False) -> list[list[str]]:
    """One row per (expert, skill, Level-2) — or per (expert, skill) with ``pooled`` — as display strings."""
    if _handbook is None:
        return []
    rows = _handbook.skill_summary(maestro.store) if pooled else _handbook.handbook_rows(maestro.store)
    table = []
    for r in rows:
        low, high = interval(r["alpha"], r["beta"])
        verdicts = r["alpha"] + r["beta"] - 2.0  # the Beta(1, 1) prior is not evidence
        table.append([r["skill"], r["level2"], r["expert"], f"{r['mean']:.0%}", f"{low:.0%} – {high:.0%}",
                      f"{verdicts:g}", str(r["runs"]), str(r["calls"]), f"{r['latency_ms']:.0f} ms",
                      f"{r['tokens']:.0f}", f"{r['money']:.4f}"])
    return table


def caption(maestro: Maestro, rows: int) -> str:
    orchestrator = maestro.registry.orchestrator
    lines = [f"**λ (cost weight) = {orchestrator.cost_weight:g}** — the router calls the expert with the highest "
             f"success estimate − λ × normalised cost (registry `orchestrator.cost_weight`). Orchestrator policy: "
             f"**{orchestrator.policy}**."]
    if orchestrator.policy != "router":
        lines.append("The handbook learns from every rating, but only the `router` policy routes by it.")
    if _handbook is None:
        lines.append("Note: the handbook module is not installed in this checkout.")
    elif not rows:
        lines.append("The handbook is empty: rate some runs (Ask or Rate tab) or run an evaluation.")
    else:
        lines.append(f"{rows} row{'s' if rows != 1 else ''}; costs are means per call. {SUCCESS_MEANS} Its "
                     f"{INTERVAL:.0%} credible interval is beside it.")
    return "  \n".join(lines)


def build_handbook_tab(maestro: Maestro) -> dict[str, Any]:
    """The Handbook tab; returns its refresher for the tab's select event."""
    info = gr.Markdown(elem_id="handbook-caption")
    with gr.Row():
        pooled = gr.Checkbox(label="One row per (expert, skill): Level-2 rows pooled", value=False, scale=3,
                             elem_id="handbook-pooled")
        refresh_button = gr.Button("Refresh", size="sm", scale=1, elem_id="handbook-refresh")
        rebuild_button = gr.Button("Rebuild from all ratings", size="sm", scale=1, elem_id="handbook-rebuild",
                                   visible=False)
    table = gr.Dataframe(headers=HEADERS, datatype="str", type="array", interactive=False, wrap=True,
                         elem_id="handbook-table", max_height=560)

    def refresh(pool: bool) -> tuple[Any, ...]:
        rows = handbook_table(maestro, bool(pool))
        return caption(maestro, len(rows)), rows

    def rebuild(pool: bool, request: gr.Request) -> tuple[Any, ...]:
        require_role(maestro, request, "admin", "rebuild the handbook")
        if _handbook is not None:
            _handbook.rebuild_handbook(maestro.store, maestro.registry)
        return refresh(pool)

    refresh_button.click(refresh, pooled, [info, table], concurrency_limit=None, api_name="handbook")
    pooled.change(refresh, pooled, [info, table], concurrency_limit=None, api_visibility="private")
    rebuild_button.click(rebuild, pooled, [info, table], concurrency_limit=None, api_name="handbook_rebuild")
    return {"refresh": refresh, "inputs": [pooled], "outputs": [info, table], "admin_only": [rebuild_button]}
