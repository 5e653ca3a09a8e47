"""The skill handbook (SkillOrchestra's, docs/design.md §4): what each (expert, skill, Level-2) has earned from feedback.

A run's verdict is the mean of its annotators' live whole-run ratings (correct 1, partial 0.5, incorrect 0; one
rating per annotator, so two who disagree give 0.5) or, when nobody rated it, whether its answer matches the
expected answer it was evaluated against. This is the one success number the UI shows: the Handbook tab per
(expert, skill, Level-2) and the Registry tab per (expert, skill), both as the Beta posterior mean. Each search
step of the run is credited with that verdict, failures as much as successes; a step whose call failed, and in an
answered run a step that settled nothing before a later pair was called, are credited 0 whatever the run's verdict
(the answer did not come from them). An abstention counts as a success only when a person rated it correct (right
to abstain); against an expected answer it is a failure. Cost is measured from the steps: latency, tokens, and
money where the registry gives the expert a price. A rerun that reused stored tool outputs (``agents.replay.rerun``)
earns nothing: it measured no tool time, and its evidence was credited already through the run it replays.

Call ``record_feedback(store, run_id)`` right after a rating or an evaluation result lands (the web UI after
``store.add_rating``, ``agents.evaluation.harness`` after each item); ``rebuild_handbook(store)`` recomputes everything from
the stored runs and ratings, and gives the same numbers. ``handbook_rows(store)`` is what a UI shows.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from agents.evaluation.answers import match_answer
from storage import handbook as tables
from storage.handbook import Credit, HandbookRecord
from storage.trace import RunRecord

if TYPE_CHECKING:
    from agents.registry import Registry
    from storage import Step, Store

#: Verdict -> success value credited to the pairs the run used.
VERDICT_SUCCESS = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}
#: Level-2 name stored when a call failed before its sub-skill was chosen.
NO_LEVEL2 = "-"


def run_outcome(run: RunRecord) -> tuple[float, str] | None:
    """(success in [0, 1], source) for a finished run, or None when nothing says whether it was right. An
    abstention is judged like an answer: by its rating ("right to abstain" is a success), else by the expected
    answer it did not give."""
    if run.status not in ("done", "abstained", "failed"):
        return None
    whole = [r for r in run.ratings if r.step_index is None]
    if whole:
        return sum(VERDICT_SUCCESS[r.verdict] for r in whole) / len(whole), "rating"
    if run.expected is not None:
        return (1.0 if run.answer is not None and match_answer(run.answer, run.expected) else 0.0), "eval"
    return None


def replayed(run: RunRecord) -> bool:
    """Whether the run is a cached rerun: it repeats a stored run with that run's tool outputs (its verdict is the
    source run's evidence again). A new question that reused tool outputs of the same image is not one."""
    return run.parent_run_id is not None and any(call.reused for step in run.steps for call in step.tool_calls)


def credits_for(run: RunRecord, registry: Registry | None = None) -> list[Credit]:
    """The run's credits: one per (expert, skill, Level-2) it searched with; empty when it has no verdict."""
    outcome = run_outcome(run)
    if outcome is None or replayed(run):
        return []
    success, source = outcome
    grouped: dict[tuple[str, str, str], list[Any]] = defaultdict(list)
    for step in run.steps:
        if step.kind == "search" and step.model and step.skill:
            grouped[(_canonical(registry, "model", step.model), _canonical(registry, "skill", step.skill),
                     step.level2 or NO_LEVEL2)].append(step)
    credits = []
    last_ok = max((s.index for s in run.steps if s.kind == "search" and s.status == "ok"), default=None)
    for (expert, skill, level2), steps in grouped.items():
        worked = any(_contributed(run, s, last_ok) for s in steps)
        # A step that reused stored tool outputs (a new question on an image seen before) took a lookup's time,
        # not the pair's: it counts for success but is no sample of the pair's cost (time, tokens, money).
        ran = [s for s in steps if not any(call.reused for call in s.tool_calls)]
        credits.append(Credit(
            expert=expert, skill=skill, level2=level2, success=success if worked else 0.0, calls=len(ran),
            latency_ms=sum(s.latency_ms for s in ran), tokens=sum(s.tokens_in + s.tokens_out for s in ran),
            money=sum(_money(registry, expert, s.tokens_in, s.tokens_out) for s in ran), source=source))
    return credits


def _contributed(run: RunRecord, step: Step, last_ok: int | None) -> bool:
    """Whether a search step could have earned the run's verdict (see module doc)."""
    if step.status != "ok":
        return False
    return run.status != "done" or step.settled_answer is not None or step.index == last_ok


def record_feedback(store: Store, run_id: str, registry: Registry | None = None) -> list[HandbookRecord]:
    """Update the handbook for one run after its rating or evaluation result landed; returns the touched rows.

    Idempotent: the run's earlier contribution (an older rating) is replaced, never added twice. ``registry``
    (an ``agents.registry.Registry``) resolves aliases and prices the calls; without it money is 0."""
    # The run is read under the handbook lock, so a rating landing meanwhile (another process) is never undone.
    keys = set(tables.replace_run_credits(store, run_id, lambda run: credits_for(run, registry)))
    return [row for row in tables.entries(store) if (row.expert, row.skill, row.level2) in keys]


def rebuild_handbook(store: Store, registry: Registry | None = None) -> int:
    """Recompute the whole handbook from stored runs, ratings and expected answers; returns the row count."""
    credits: dict[str, list[Credit]] = {}
    for run_id in tables.feedback_run_ids(store):
        run = store.get_run(run_id)
        if run is not None:
            found = credits_for(run, registry)
            if found:
                credits[run_id] = found
    return tables.rebuild(store, credits)


def load_handbook(store: Store) -> dict[tuple[str, str, str], HandbookRecord]:
    """Every handbook row keyed by (expert, skill, Level-2)."""
    return {(r.expert, r.skill, r.level2): r for r in tables.entries(store)}


def handbook_rows(store: Store, *, expert: str | None = None, skill: str | None = None) -> list[dict[str, Any]]:
    """Handbook rows as plain dicts (expert, skill, level2, alpha, beta, mean, runs, calls, latency_ms, tokens,
    money), ordered by skill, Level-2, expert: what the web UI's handbook table and ``maestro handbook show`` list."""
    return [row.as_dict() for row in tables.entries(store, expert=expert, skill=skill)]


def skill_summary(store: Store) -> list[dict[str, Any]]:
    """Per (expert, skill), Level-2 rows pooled: the Beta posterior and mean cost per call."""
    pooled: dict[tuple[str, str], list[HandbookRecord]] = defaultdict(list)
    for row in tables.entries(store):
        pooled[(row.expert, row.skill)].append(row)
    out = []
    for _key, rows in sorted(pooled.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        pooled_row = pool(rows)
        out.append({**pooled_row.as_dict(), "level2": "*"})
    return out


def pool(rows: list[HandbookRecord]) -> HandbookRecord:
    """Several rows of one (expert, skill) as one: evidence added, costs weighted by calls."""
    first = rows[0]
    calls = sum(r.calls for r in rows) or 1
    return HandbookRecord(
        first.expert, first.skill, "*", tables.PRIOR_ALPHA + sum(r.alpha - tables.PRIOR_ALPHA for r in rows),
        tables.PRIOR_BETA + sum(r.beta - tables.PRIOR_BETA for r in rows), sum(r.runs for r in rows),
        sum(r.calls for r in rows), sum(r.latency_ms * r.calls for r in rows) / calls,
        sum(r.tokens * r.calls for r in rows) / calls, sum(r.money * r.calls for r in rows) / calls)


def _canonical(registry: Registry | None, kind: str, name: str) -> str:
    if registry is None:
        return name
    names = registry.model_names if kind == "model" else registry.skill_names
    return names.resolve(name) or name


def _money(registry: Registry | None, expert: str, tokens_in: int, tokens_out: int) -> float:
    if registry is None:
        return 0.0
    try:
        return float(registry.expert_spec(expert).cost.of(tokens_in, tokens_out))
    except KeyError:  # an expert no longer in the registry: its price is unknown
        return 0.0
