"""The Registry tab: configured experts with their health, skills with their Level-2 sub-skills, and per
(expert, skill) call counts with the pair's success — the very number the Handbook tab shows for the pair (its
pooled view): the skill handbook's Beta posterior mean (``agents.routing.handbook``), never a second count of its own.

Health checks never block the page: the tab renders first with "not checked", then a separate event asks every
expert at once in a thread pool and gives each at most ``HEALTH_TIMEOUT_S``. ``tools`` experts are always
reachable; an in-process (transformers) expert is not loaded just to look at this page.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any

import gradio as gr

from agents.runtime import Maestro

if TYPE_CHECKING:
    from agents.registry import ExpertSpec

HEALTH_TIMEOUT_S = 3.0
EXPERT_HEADERS = ["expert", "backend", "model / endpoint", "strengths", "reachable", "latency", "detail"]
SKILL_HEADERS = ["skill", "aliases", "description", "level-2 sub-skills"]
PAIR_HEADERS = ["expert", "skill", "calls", "runs", "success (handbook)", "verdicts"]
#: What the success column counts (shown under the table, and in the Handbook tab's caption).
SUCCESS_MEANS = ("**success** is the skill handbook's estimate for the pair, the same number as the Handbook tab's "
                 "pooled view: the Beta(1, 1)-prior posterior mean over the runs that earned it credit — each "
                 "annotator's verdict counts correct 1, partial ½, incorrect 0 (averaged over annotators), an "
                 "unrated evaluation run 1 if its answer matched the expected one, a failed call 0. **verdicts** "
                 "is how many runs' worth of evidence that is.")
_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="maestro-health")


def _where(spec: ExpertSpec) -> str:
    where = spec.model or spec.model_path or "-"
    return f"{where} @ {spec.base_url}" if spec.base_url else where


def health_of(maestro: Maestro, spec: ExpertSpec) -> tuple[str, str, str]:
    """(reachable, latency, detail) for one expert, within ``HEALTH_TIMEOUT_S``."""
    if spec.backend == "tools":
        return "yes", "0 ms", "vision tools run in-process"
    loaded = spec.name in getattr(maestro.registry, "_instances", {})
    if spec.backend == "transformers" and not loaded:
        return "– not loaded", "-", "in-process model: loads on first use"
    started = time.perf_counter()

    def check() -> tuple[bool, float, str]:
        expert = maestro.registry.expert(spec.name)
        probe = getattr(expert, "health", None)
        if not callable(probe):
            return True, (time.perf_counter() - started) * 1000, "loaded (no health probe)"
        return probe()

    try:
        ok, latency, detail = _pool.submit(check).result(timeout=HEALTH_TIMEOUT_S)
    except FutureTimeout:
        return "no", f"> {HEALTH_TIMEOUT_S:.0f} s", f"no answer within {HEALTH_TIMEOUT_S:.0f} s"
    except Exception as exc:  # a broken entry is a row on the page, not a crash
        return "no", "-", f"{type(exc).__name__}: {exc}"
    return ("yes" if ok else "no"), f"{latency:.0f} ms", detail


def expert_rows(maestro: Maestro, check: bool) -> list[list[str]]:
    specs = maestro.registry.experts
    if check:
        futures = [_pool.submit(health_of, maestro, spec) for spec in specs]
        health = [f.result() for f in futures]  # each already bounded by its own timeout
    else:
        health = [("… checking", "-", "") for _ in specs]
    return [[s.name, s.backend, _where(s), ", ".join(s.strengths) or "(all)", *h] for s, h in zip(specs, health,
                                                                                               strict=True)]


def skill_rows(maestro: Maestro) -> list[list[str]]:
    return [[s.spec.name, ", ".join(s.spec.aliases), s.spec.description,
             "; ".join(f"{l2.name} — {l2.description}" for l2 in s.spec.level2)] for s in maestro.registry.skills]


def pair_rows(maestro: Maestro) -> list[list[str]]:
    from agents.routing.handbook import skill_summary

    learned = {(r["expert"], r["skill"]): r for r in skill_summary(maestro.store)}
    rows = []
    for p in maestro.store.pair_stats():
        row = learned.get((p.model, p.skill))
        success = "-" if row is None else f"{row['mean']:.0%}"
        evidence = "0" if row is None else f"{row['alpha'] + row['beta'] - 2.0:g}"
        rows.append([p.model, p.skill, str(p.calls), str(p.runs), success, evidence])
    return rows


def problems_text(maestro: Maestro) -> str:
    problems = maestro.registry.problems
    head = f"Registry file: `{maestro.registry.path}` · orchestrator policy **{maestro.registry.orchestrator.policy}**"
    if not problems:
        return head
    return head + "\n\nSkill folders that failed to load:\n" + "\n".join(
        f"- `{p.path}`: {p.message}" for p in problems)


def build_registry_tab(maestro: Maestro) -> dict[str, Any]:
    """The Registry tab; returns the loaders the page wires to the tab's select event."""
    gr.Markdown(problems_text(maestro))
    gr.Markdown("### Experts")
    experts = gr.Dataframe(headers=EXPERT_HEADERS, type="array", interactive=False, wrap=True,
                           elem_id="registry-experts")
    check = gr.Button("Check health", size="sm", elem_id="registry-check")
    gr.Markdown("### Skills (Level-1 with their Level-2)")
    gr.Dataframe(value=skill_rows(maestro), headers=SKILL_HEADERS, type="array", interactive=False, wrap=True,
                 elem_id="registry-skills", column_widths=["12%", "14%", "37%", "37%"])
    gr.Markdown("### Calls per (expert, skill) and how well the pair did")
    pairs = gr.Dataframe(headers=PAIR_HEADERS, type="array", interactive=False, elem_id="registry-pairs")
    gr.Markdown(SUCCESS_MEANS, elem_id="registry-success-means")

    def quick() -> tuple[Any, ...]:
        return expert_rows(maestro, check=False), pair_rows(maestro)

    def checked() -> list[list[str]]:
        return expert_rows(maestro, check=True)

    check.click(checked, None, experts, concurrency_limit=None, api_name="registry_health")
    return {"quick": quick, "quick_outputs": [experts, pairs], "checked": checked, "checked_outputs": [experts]}
