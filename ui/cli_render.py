"""How the command line shows runs, run lists, evaluation summaries and the registry (rich text or JSON)."""

from __future__ import annotations

import json
from dataclasses import asdict, is_dataclass
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from ui.terminal import escape

if TYPE_CHECKING:
    from agents.registry import Registry
    from storage import RunRecord, Step
    from storage.trace import Run

console = Console(highlight=False)


def print_run(run: Run | RunRecord, *, model_calls: bool = False) -> None:
    """A readable trace: each step with its pair, Level-2 choice, tool calls and timings (and, with
    ``model_calls``, the exact prompt and raw reply of every model call), then the vote and the answer."""
    console.print(f"[dim]run {run.id}[/dim]  question: {escape(run.question)}")
    shown: dict[str, int] = {}  # message text -> the step that printed it first (a system prompt repeats per turn)
    for step in run.steps:
        _print_step(step)
        if model_calls:
            for call in step.model_calls:
                _print_model_call(call, step.index, shown)
    _print_self_consistency(run)
    colour = {"done": "green", "abstained": "yellow"}.get(run.status, "red")
    forced = " (forced at the turn limit)" if run.forced_answer else ""
    console.print(f"[bold {colour}]{run.status}[/]{forced} in {run.latency_ms or 0:.0f} ms")
    if run.error:
        console.print(f"[red]error:[/] {escape(run.error)}")
    if run.status == "done":
        sure = f"  [dim](P(correct) {run.confidence:.2f})[/]" if run.confidence is not None else ""
        console.print(f"[bold]Answer:[/] {escape(str(run.answer))}{sure}")
    else:
        console.print(f"[bold {colour}]No answer:[/] {escape(str(run.reason or run.error or run.status))}")
    trust = getattr(run, "trust", None) or {}
    decision = trust.get("decision") or {}
    if trust.get("calibration") or decision:  # why this confidence: the evidence kind and the calibration
        console.print(f"[dim]evidence kind {escape(str(decision.get('kind') or '-'))}, threshold "
                      f"{decision.get('threshold') or '-'} for precision {trust.get('target')}, calibration "
                      f"{escape(str(trust.get('calibration') or 'none (deprecated raw-score threshold)'))}[/]")


def _print_step(step: Step) -> None:
    head = f"[bold]step {step.index}[/] {step.kind}"
    if step.kind == "search":
        head += f"  [cyan]{escape(str(step.model))}@@{escape(str(step.skill))}[/]"
        if step.level2:
            head += f" → {escape(step.level2)}"
    head += f"  [dim]{step.latency_ms:.0f} ms (policy {step.policy_ms:.0f}, tools {step.tool_ms:.0f}, " \
            f"expert {step.expert_ms:.0f})[/]"
    if step.tokens_in or step.tokens_out:
        head += f" [dim]{step.tokens_in}+{step.tokens_out} tok[/]"
    console.print(head)
    if step.think:
        console.print(f"  think: {escape(step.think)}")
    if step.kind == "search":
        if step.level2_reason:
            console.print(f"  [dim]level-2 because {escape(step.level2_reason)}[/]")
        for call in step.tool_calls:
            reused = " [dim](reused)[/]" if call.reused else ""
            console.print(f"  [magenta]tool {escape(call.tool)}[/]{reused} {call.latency_ms:.0f} ms: {escape(call.summary)}")
        if step.observation:
            console.print("  observation: " + escape(step.observation).replace("\n", "\n    "))
    if step.error:
        console.print(f"  [red]error:[/] {escape(step.error)}")


def _print_model_call(call: Any, step_index: int, shown: dict[str, int]) -> None:
    params = ", ".join(f"{k} {v}" for k, v in (call.params or {}).items() if v is not None)
    console.print(f"  [blue]{escape(call.role)} call[/] {escape(call.model)}  [dim]{call.latency_ms:.0f} ms, "
                  f"{call.tokens_in}+{call.tokens_out} tok{', ' + escape(params) if params else ''}[/]")
    console.print("    [bold]prompt[/] (exact messages sent):")
    for message in call.messages:
        parts = message.get("content")
        parts = parts if isinstance(parts, list) else [{"type": "text", "text": str(parts)}]
        text = "\n".join(str(p.get("text") or "") for p in parts if p.get("type") == "text")
        images = [str(p.get("image_id") or "<image>") for p in parts if p.get("type") == "image"]
        head = f"    [{escape(str(message.get('role')))}]" + "".join(f" [image {escape(i)}]" for i in images)
        if text in shown:
            console.print(f"{head} [dim](the same text as in step {shown[text]}'s call)[/]")
            continue
        shown[text] = step_index
        console.print(head + ("\n      " + escape(text).replace("\n", "\n      ") if text else ""))
    if call.error:
        console.print(f"    [red]error:[/] {escape(call.error)}")
    console.print("    [bold]raw reply[/] (before any sanitising):\n      "
                  + escape(call.raw_reply or "(empty)").replace("\n", "\n      "))


def _print_self_consistency(run: Run | RunRecord) -> None:
    """The sc@k vote (answers, counts, agreement), or the warning of a call that could not sample."""
    vote = getattr(run, "vote", None) or {}
    if vote:
        counts = ", ".join(f"{escape(str(a))} ×{n}" for a, n in (vote.get("counts") or {}).items()) or "no answers"
        console.print(f"[bold]self-consistency sc@{vote.get('k')}[/]: {counts}; agreement "
                      f"{float(vote.get('agreement') or 0):.2f}; samples "
                      + ", ".join(str(r)[:12] for r in vote.get("run_ids") or []))
    sc = (getattr(run, "config", None) or {}).get("sc") or {}
    if sc.get("warning"):
        console.print(f"[yellow]warning:[/] {escape(sc['warning'])}")
    elif sc.get("group") and not vote:
        console.print(f"[dim]sample {int(sc.get('index', 0)) + 1} of sc@{sc.get('k')} (group {sc['group'][:12]}); "
                      f"the vote is stored on the group's winning sample[/]")


def print_stored_run(record: RunRecord, as_json: bool) -> None:
    if as_json:
        console.print_json(json.dumps(_plain(record), default=str))
        return
    print_run(record, model_calls=True)
    console.print(f"[dim]created {record.created_at}  policy {record.policy}  image {record.image_id[:12]}  "
                  f"registry {record.registry_hash}[/]")
    for rating in getattr(record, "ratings", []):
        console.print(f"rating by {escape(rating.rater)}: {rating.verdict}"
                      + (f", corrected: {escape(rating.corrected_answer)}" if rating.corrected_answer else ""))


def print_run_list(rows: list[Any], as_json: bool) -> None:
    if as_json:
        console.print_json(json.dumps([_plain(r) for r in rows], default=str))
        return
    table = Table("id", "created", "status", "rating", "pairs", "question", "answer")
    for row in rows:
        pairs = ", ".join(f"{m}@@{s}" for m, s in zip(row.models, row.skills, strict=False))
        table.add_row(row.id[:12], str(row.created_at)[:19], row.status, row.rating or "-", escape(pairs),
                      escape(_cut(row.question, 50)), escape(_cut(row.answer or "-", 30)))
    console.print(table)


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def print_summary(summary: dict[str, Any]) -> None:
    """Per category and overall: how much was answered (coverage), how much of that was right (precision when
    answering), and accuracy over everything."""
    table = Table("category", "n", "answered", "coverage", "precision", "accuracy")
    for category, stats in summary["per_category"].items():
        table.add_row(escape(category), str(stats["n"]), str(stats["answered"]), _share(stats["coverage"]),
                      _share(stats["precision"]), _share(stats["accuracy"]))
    table.add_row("[bold]overall[/]", str(summary["items"]), str(summary["answered"]), _share(summary["coverage"]),
                  f"[bold]{_share(summary['precision'])}[/]", _share(summary["accuracy"]))
    console.print(table)
    lat = summary["latency_ms"]
    statuses = ", ".join(f"{k} {v}" for k, v in summary.get("statuses", {}).items())
    console.print(f"latency p50 {lat['p50']} ms, p95 {lat['p95']} ms; runs: {statuses}")
    if summary.get("routing_accuracy") is not None:
        console.print(f"Level-1 routing correct: {summary['routing_accuracy']:.1%}")
    trust = summary.get("trust") or {}
    if trust.get("ece") is not None:
        curve = "; ".join(f"P>={r['threshold']:.2f}: {_share(r['coverage'])} answered, {_share(r['precision'])} right"
                          for r in trust["risk_coverage"] if r["threshold"] in (0.5, 0.8, 0.9, 0.95))
        chance = trust.get("ece_by_chance")
        noise = f" (chance alone on this many: {chance['mean']:.3f}, 95 % below {chance['p95']:.3f})" if chance else ""
        console.print(f"ECE {trust['ece']:.3f}{noise}; risk-coverage: {curve}")


def print_spread(summary: dict[str, Any]) -> None:
    """``eval --repeat K``: each metric's value per repetition and their spread."""
    table = Table("metric", "per repetition", "mean", "std", "min", "max", title=f"{summary['repeat']} repetitions "
                  f"of {summary['items']} items")
    for name, stats in summary["spread"].items():
        table.add_row(name, " ".join(_share(v) for v in stats["values"]), _share(stats["mean"]),
                      _share(stats["std"]), _share(stats["min"]), _share(stats["max"]))
    console.print(table)


def print_registry(registry: Registry) -> None:
    experts = Table("expert", "backend", "model / url", "strengths", title=f"experts ({registry.path})")
    for e in registry.experts:
        experts.add_row(e.name, e.backend, escape(e.model or e.model_path or "-") + (f" @ {e.base_url}" if e.base_url else ""),
                        ", ".join(e.strengths) or "(all)")
    console.print(experts)
    skills = Table("skill", "aliases", "level-2 (its tools)", "folder", title="skills")
    for s in registry.skills:
        level2 = "\n".join(escape(l2.name) + (f" [dim]({', '.join(map(escape, l2.tools))})[/]" if l2.tools else "")
                           for l2 in s.spec.level2)
        skills.add_row(s.spec.name, ", ".join(s.spec.aliases), level2, escape(s.spec.folder))
    console.print(skills)
    for problem in registry.problems:
        console.print(f"[yellow]skipped[/] {escape(problem.path)}: {escape(problem.message)}")


def _plain(obj: Any) -> Any:
    return asdict(obj) if is_dataclass(obj) and not isinstance(obj, type) else obj


def _cut(text: str, width: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"
