"""``maestro rerun`` and ``maestro diff``: run a stored run again under a registry, and compare two runs step by step.

The commands are plain functions; ``ui.cli`` registers them on its app (with its one-line error handling), so this
module never imports ``ui.cli``. The work is ``agents.replay.rerun`` and ``agents.replay.diff``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ui import cli_render
from ui.cli_options import DataDir, DbOpt, RegistryOpt
from ui.terminal import escape


def rerun_command(
        run_id: Annotated[str, typer.Argument(help="The stored run to run again (id or a unique prefix).")],
        tools: Annotated[str, typer.Option("--tools", help="cached: reuse stored tool outputs where the call "
                                                           "matches; live: run every tool again.")] = "cached",
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a trace.")] = False,
        data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Run RUN_ID's image and question again under --registry; the new run is stored, linked to RUN_ID."""
    from agents.config import Settings
    from agents.replay.diff import diff_runs
    from agents.replay.rerun import changed_tools, find_run, rerun, reuse_count, tools_mode
    from agents.runtime import Maestro

    mode = tools_mode(tools)
    maestro = Maestro.open(Settings.resolve(data_dir=data_dir, db_url=db, registry_path=registry))
    source = find_run(maestro.store, run_id)
    result = rerun(maestro, source, tools=mode)
    record = maestro.store.get_run(result.id or "")
    diff = diff_runs(source, record) if record is not None else None
    reuse = reuse_count(result)
    changed = changed_tools(source, result)
    same_registry = source.registry_hash == (record.registry_hash if record else None)
    if as_json:
        data = {**result.to_json(), "parent_run_id": source.id, "tools": tools,
                "reused_tool_calls": reuse.reused, "tool_calls": reuse.calls, "same_registry": same_registry,
                "tools_changed": changed,
                "diff": diff.to_dict() if diff else None}
        typer.echo(json.dumps(data, ensure_ascii=False, default=str))
    else:
        cli_render.print_run(result)
        console = cli_render.console
        console.print(f"[dim]rerun of {source.id} · tools {tools}: {reuse} · registry "
                      f"{'same as' if same_registry else 'differs from'} the original run's[/]")
        if changed:
            console.print(f"ran again, their version changed since the original run: {escape(', '.join(changed))}")
        if diff is not None:
            console.print(f"compared with the original: [bold]{escape(diff.headline())}[/]")
    if result.status != "done":
        raise typer.Exit(1 if result.status == "abstained" else 3)


def diff_command(
        run_a: Annotated[str, typer.Argument(help="The first run (id or a unique prefix).")],
        run_b: Annotated[str, typer.Argument(help="The second run (id or a unique prefix).")],
        as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as one JSON object.")] = False,
        data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Compare two stored runs step by step; says plainly when they are identical apart from timings."""
    from agents.config import Settings
    from agents.replay.diff import diff_runs
    from agents.replay.rerun import find_run
    from storage import open_store

    settings = Settings.resolve(data_dir=data_dir, db_url=db, registry_path=registry)
    with open_store(settings.data_dir, settings.db_url) as store:
        diff = diff_runs(find_run(store, run_a), find_run(store, run_b))
    if as_json:
        typer.echo(json.dumps(diff.to_dict(), ensure_ascii=False, default=str))
    else:
        print_diff(diff)


def print_diff(diff: Any) -> None:
    """The comparison as readable lines: each step with what differs (A → B) and both latencies."""
    console = cli_render.console
    related = f" ({diff.related})" if diff.related else ""
    console.print(f"A {diff.run_a}\nB {diff.run_b}{related}")
    for step in diff.steps:
        a_title, b_title = step.title
        title = a_title if a_title == b_title else f"{a_title or '—'} | {b_title or '—'}"
        latency = " → ".join(_ms(v) for v in step.latency_ms)
        mark = "[green]same[/]" if step.same else "[bold yellow]differs[/]"
        console.print(f"step {step.index + 1} {escape(str(title))}  {mark}  [dim]{latency}[/]")
        if step.only_in:
            console.print(f"  only in run {step.only_in.upper()}")
        for name, (a, b) in step.differences.items():
            console.print(f"  {escape(name)}: {escape(_short(a))} → {escape(_short(b))}")
    for name, (a, b) in diff.run.items():
        console.print(f"[bold]{escape(name)}[/]: {escape(_short(a))} → {escape(_short(b))}")
    latency = " → ".join(_ms(v) for v in diff.latency_ms)
    colour = "green" if diff.identical else "yellow"
    console.print(f"[bold {colour}]{escape(diff.headline())}[/]  [dim](run latency {latency})[/]")


def print_comparison(comparison: dict[str, Any], path: Path) -> None:
    """The counts of an evaluation compared with its baseline, then one line per changed item."""
    console = cli_render.console
    counts = comparison["counts"]
    console.print(f"compared with {escape(str(comparison.get('baseline')))}: "
                  + ", ".join(f"{counts[k]} {k}" for k in ("unchanged", "improved", "regressed", "changed")))
    table = Table("change", "item", "before", "after", "run before → after")
    for kind in ("regressed", "improved", "changed"):
        for item in comparison.get(kind, []):
            before, after = item["before"], item["after"]
            table.add_row(kind, escape(_short(item["id"], 40)), escape(_outcome(before)), escape(_outcome(after)),
                          f"{(before['run_id'] or '-')[:8]} → {(after['run_id'] or '-')[:8]}")
    if table.row_count:
        console.print(table)
    console.print(f"comparison: {path}")


def _outcome(side: dict[str, Any]) -> str:
    if side.get("status") == "done":
        return f"{_short(side.get('answer'), 24)} ({'right' if side.get('correct') else 'wrong'})"
    return f"{side.get('status')}: {_short(side.get('reason'), 40)}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ms"


def _short(value: Any, limit: int = 120) -> str:
    """One line of at most ``limit`` characters; control characters shown escaped, never sent to the terminal."""
    text = json.dumps(value, default=str) if isinstance(value, dict | list) else " ".join(str(value).split())
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"
