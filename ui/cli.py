"""The ``maestro`` command line: ask, eval, rerun, diff, runs, registry, web, sandbox.

``--data-dir``, ``--registry`` and ``--db`` work the same on every command and fall back to ``MAESTRO_HOME``,
``MAESTRO_REGISTRY`` and ``MAESTRO_DB``. Every error is one clear line on stderr and a non-zero exit.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from ui import cli_render, cli_rerun
from ui.cli_sandbox import sandbox_app

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Maestro: ask questions about images through (expert model, vision skill) pairs.")
runs_app = typer.Typer(no_args_is_help=True, help="Browse stored runs.")
app.add_typer(runs_app, name="runs")
app.add_typer(sandbox_app, name="sandbox")

DataDir = Annotated[Path | None, typer.Option("--data-dir", envvar="MAESTRO_HOME", help="Data directory (default ~/.maestro).")]
RegistryOpt = Annotated[Path | None, typer.Option("--registry", envvar="MAESTRO_REGISTRY", help="Registry YAML file.")]
DbOpt = Annotated[str | None, typer.Option("--db", envvar="MAESTRO_DB", help="SQLAlchemy database URL.")]
ScOpt = Annotated[int | None, typer.Option("--sc", min=1, max=16, help="Self-consistency: sample K trajectories "
                                           "and vote (default: the registry's orchestrator.self_consistency).")]
F = TypeVar("F", bound=Callable[..., Any])


def friendly_errors(fn: F) -> F:
    """Turn expected failures into one line on stderr and exit code 2."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (ValueError, FileNotFoundError, PermissionError, KeyError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            typer.echo(f"error: {message}", err=True)
            raise typer.Exit(2) from None
    return wrapper  # type: ignore[return-value]


def _open(data_dir: Path | None, registry: Path | None, db: str | None, max_turns: int | None = None) -> Any:
    from agents.config import Settings
    from agents.runtime import Maestro

    return Maestro.open(Settings.resolve(data_dir=data_dir, db_url=db, registry_path=registry, max_turns=max_turns))


@app.command()
@friendly_errors
def ask(image: Annotated[Path, typer.Argument(help="Image file (PNG, JPEG, WebP...).")],
        question: Annotated[str, typer.Argument(help="The question about the image.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a trace.")] = False,
        max_turns: Annotated[int | None, typer.Option("--max-turns", min=1, max=32, help="Turn limit T_max.")] = None,
        sc: ScOpt = None, data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Ask QUESTION about IMAGE; prints the answer and a readable trace (the run is stored)."""
    if not image.is_file():
        raise FileNotFoundError(f"image not found: {image}")
    if not question.strip():
        raise ValueError("empty question: ask something about the image")
    maestro = _open(data_dir, registry, db, max_turns)
    _warn_if_cannot_sample(maestro, sc)
    result = maestro.ask(image, question, sc=sc)
    if as_json:
        typer.echo(json.dumps(cli_render.run_json(result), ensure_ascii=False))
    else:
        cli_render.print_run(result)
    if result.status != "done":  # 1: abstained (no answer, with a reason); 3: failed, cancelled or interrupted
        raise typer.Exit(1 if result.status == "abstained" else 3)


@app.command("eval")
@friendly_errors
def eval_command(dataset: Annotated[Path, typer.Argument(help="JSONL: {id, image, question, answer, category}.")],
                 out: Annotated[Path, typer.Option("--out", help="Folder for results.jsonl and summary.json.")],
                 concurrency: Annotated[int, typer.Option("--concurrency", min=1, max=64)] = 1,
                 limit: Annotated[int | None, typer.Option("--limit", min=1)] = None,
                 resume: Annotated[bool, typer.Option("--resume", help="Go on with an interrupted evaluation in "
                                                                      "--out: finished items are kept, not redone.")] = False,
                 baseline: Annotated[Path | None, typer.Option("--baseline", help="An earlier results folder: "
                                                               "write --out/comparison.json item by item.")] = None,
                 from_runs: Annotated[Path | None, typer.Option("--from-runs", help="An earlier results folder: "
                                                                "rerun its stored runs (compared with it unless "
                                                                "--baseline says otherwise).")] = None,
                 tools: Annotated[str, typer.Option("--tools", help="live: run every tool; cached: reuse stored "
                                                                   "tool outputs where the call matches.")] = "live",
                 sc: ScOpt = None,
                 data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Run every item of DATASET through the agent (each one stored) and report accuracy and latency."""
    from agents.eval_compare import COMPARISON, load_comparison
    from agents.evaluate import evaluate

    maestro = _open(data_dir, registry, db)
    _warn_if_cannot_sample(maestro, sc)
    summary = evaluate(maestro, dataset, out, concurrency=concurrency, limit=limit, progress=sys.stderr.isatty(),
                       resume=resume, from_runs=from_runs, tools=tools, baseline=baseline, sc=sc)
    cli_render.print_summary(summary)
    if "resumed" in summary:
        kept = summary["resumed"]
        typer.echo(f"resumed: {kept['kept']} finished items kept, {kept['ran']} run now"
                   + (f", {kept['dropped_lines']} torn line(s) dropped" if kept["dropped_lines"] else ""))
    if summary.get("from_runs", {}).get("ran_afresh"):
        typer.echo(f"note: {summary['from_runs']['ran_afresh']} item(s) had no stored run of "
                   f"{from_runs} in this data directory and were run afresh")
    typer.echo(f"results: {out / 'results.jsonl'}\nsummary: {out / 'summary.json'}")
    if "comparison" in summary:
        cli_rerun.print_comparison(load_comparison(out), out / COMPARISON)


app.command("rerun")(friendly_errors(cli_rerun.rerun_command))
app.command("diff")(friendly_errors(cli_rerun.diff_command))


def _warn_if_cannot_sample(maestro: Any, sc: int | None) -> None:
    """One line on stderr when self-consistency is asked of a policy that cannot sample (it is asked once)."""
    from agents.self_consistency import sampling_warning

    warning = sampling_warning(maestro.policy, sc if sc is not None else maestro.registry.orchestrator.self_consistency)
    if warning:
        typer.echo(f"warning: {warning}", err=True)


@runs_app.command("list")
@friendly_errors
def runs_list(limit: Annotated[int, typer.Option("--limit", min=1, max=1000)] = 20,
              status: Annotated[str | None, typer.Option("--status")] = None,
              search: Annotated[str | None, typer.Option("--search", help="Text in the question.")] = None,
              as_json: Annotated[bool, typer.Option("--json")] = False,
              data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """List stored runs, newest first."""
    from agents.config import Settings
    from storage import open_store

    settings = Settings.resolve(data_dir=data_dir, db_url=db, registry_path=registry)
    store = open_store(settings.data_dir, settings.db_url)
    rows = store.list_runs(limit=limit, status=status, text=search)
    cli_render.print_run_list(rows, as_json)


@runs_app.command("show")
@friendly_errors
def runs_show(run_id: Annotated[str, typer.Argument(help="Run id (or a unique prefix).")],
              as_json: Annotated[bool, typer.Option("--json")] = False,
              data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Show one stored run with every step, tool call and model call (exact prompt and raw reply)."""
    from agents.config import Settings
    from storage import open_store

    settings = Settings.resolve(data_dir=data_dir, db_url=db, registry_path=registry)
    store = open_store(settings.data_dir, settings.db_url)
    record = store.get_run(run_id) or _by_prefix(store, run_id)
    if record is None:
        raise ValueError(f"no run with id {run_id!r}")
    cli_render.print_stored_run(record, as_json)


def _by_prefix(store: Any, prefix: str) -> Any:
    if len(prefix) < 4:
        return None
    matches = [r for r in store.list_runs(limit=100000) if r.id.startswith(prefix)]
    return store.get_run(matches[0].id) if len(matches) == 1 else None


@app.command("registry")
@friendly_errors
def registry_command(registry: RegistryOpt = None) -> None:
    """Validate the registry and list its experts and skills (and any skill folders that failed to load)."""
    from agents.registry import load_registry

    cli_render.print_registry(load_registry(registry))


@app.command()
@friendly_errors
def web(host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
        port: Annotated[int, typer.Option("--port")] = 7860,
        auth: Annotated[str | None, typer.Option("--auth", help="user:password")] = None,
        share: Annotated[bool, typer.Option("--share/--no-share")] = False,
        data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Launch the web application (same as `python app.py`)."""
    from ui.web import launch

    launch(host=host, port=port, auth=auth, share=share, data_dir=data_dir, registry=registry, db=db)


def main() -> None:
    """Entry point of the ``maestro`` console script."""
    # Importing a command module registers its commands on ``app`` (kept in their own files by topic).
    from ui import cli_experts, cli_export, cli_handbook, cli_rate  # noqa: F401

    app()


if __name__ == "__main__":
    # Run through the imported module so there is one ``app``, the one the command modules register on.
    from ui import cli as _self

    _self.main()
