"""The ``maestro`` command line: ask, eval, calibrate, rerun, diff, runs, registry, web, sandbox.

``--data-dir``, ``--registry`` and ``--db`` work the same on every command and fall back to ``MAESTRO_HOME``,
``MAESTRO_REGISTRY`` and ``MAESTRO_DB``. Every error — a usage mistake, a data directory that is a file, a corrupt
database, a bad registry, a port that cannot be bound — is one line on stderr and exit code 2, never a traceback;
text from storage is printed with its control characters made visible (``ui.terminal``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ui import cli_experts, cli_export, cli_handbook, cli_rate, cli_render, cli_rerun, cli_team, cli_trust
from ui.cli_options import (
    DataDir,
    DbOpt,
    RegistryOpt,
    ScOpt,
    add_shared_options,
    friendly_errors,
    one_line,
    open_maestro,
    open_store,
)
from ui.cli_sandbox import sandbox_app

if TYPE_CHECKING:
    from agents.runtime import Maestro

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Maestro: ask questions about images through (expert model, vision skill) pairs.")
runs_app = typer.Typer(no_args_is_help=True, help="Browse stored runs.")
app.add_typer(runs_app, name="runs")
app.add_typer(sandbox_app, name="sandbox")
app.add_typer(cli_handbook.handbook_app, name="handbook")
app.add_typer(cli_rate.users_app, name="users")
app.add_typer(cli_team.team_app, name="team")
# Commands kept in their own files by topic, registered here so every command is listed in one place.
app.command("rate")(cli_rate.rate_command)
app.command("export")(cli_export.export_command)
app.command("serve-experts")(cli_experts.serve_experts)
app.command("doctor")(cli_experts.doctor)
app.command("prompt")(cli_experts.prompt)
app.command("rerun")(friendly_errors(cli_rerun.rerun_command))
app.command("diff")(friendly_errors(cli_rerun.diff_command))
app.command("calibrate")(cli_trust.calibrate_command)

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
    from agents.runtime import has_text

    if not has_text(question):
        raise ValueError("empty question: ask something about the image")
    maestro = open_maestro(data_dir, registry, db, max_turns)
    _warn_if_cannot_sample(maestro, sc)
    result = maestro.ask(image, question, sc=sc)
    if as_json:
        typer.echo(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        cli_render.print_run(result)
    if result.status != "done":  # 1: abstained (no answer, with a reason); 3: failed, cancelled or interrupted
        raise typer.Exit(1 if result.status == "abstained" else 3)


@app.command("eval")
@friendly_errors
def eval_command(out: Annotated[Path, typer.Option("--out", help="Folder for results.jsonl and summary.json.")],
                 dataset: Annotated[Path | None, typer.Argument(help="JSONL: {id, image, question, answer, "
                                                                     "category, alternatives?}.")] = None,
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
                 shuffle_options: Annotated[int | None, typer.Option(
                     "--shuffle-options", metavar="SEED", help="Shuffle each multiple-choice item's options "
                     "(order drawn from SEED and the item id; the expected letter moves with them).")] = None,
                 repeat: Annotated[int, typer.Option("--repeat", min=1, max=100, help="Run the evaluation K times "
                                                     "(OUT/repeat-<r>) and report the spread.")] = 1,
                 shared: Annotated[str | None, typer.Option("--shared", help="Work on the evaluation NAME with "
                                                            "every other worker on this --db: items are claimed "
                                                            "from the database, each runs once.")] = None,
                 collect: Annotated[str | None, typer.Option("--collect", help="Write the results of shared "
                                                             "evaluation NAME from the database into --out.")] = None,
                 data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Run every item of DATASET through the agent (each one stored) and report accuracy and latency."""
    from agents.evaluation.compare import COMPARISON, load_comparison
    from agents.evaluation.harness import evaluate

    if collect is None and dataset is None:
        raise ValueError("give the DATASET to evaluate (or --collect NAME to write a shared evaluation's results)")
    maestro = open_maestro(data_dir, registry, db)
    if shared is not None or collect is not None:
        _shared_eval(maestro, dataset, out, shared, collect, limit=limit, concurrency=concurrency)
        return
    assert dataset is not None
    _warn_if_cannot_sample(maestro, sc)
    if repeat > 1:
        cli_render.print_spread(_repeated(maestro, dataset, out, repeat, shuffle_options, concurrency=concurrency,
                                          limit=limit, tools=tools, sc=sc))
        typer.echo(f"summary: {out / 'summary.json'}")
        return
    summary = evaluate(maestro, dataset, out, concurrency=concurrency, limit=limit, progress=sys.stderr.isatty(),
                       resume=resume, from_runs=from_runs, tools=tools, baseline=baseline, sc=sc,
                       shuffle_options=shuffle_options)
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


def _repeated(maestro: Maestro, dataset: Path, out: Path, repeat: int, shuffle_options: int | None,
              **options: Any) -> dict[str, Any]:
    from agents.provenance.repeats import evaluate_repeated

    return evaluate_repeated(maestro, dataset, out, repeat=repeat, shuffle_options=shuffle_options,
                             progress=sys.stderr.isatty(), **options)


def _shared_eval(maestro: Maestro, dataset: Path | None, out: Path, shared: str | None, collect: str | None, *,
                 limit: int | None, concurrency: int) -> None:
    """``--shared NAME`` (work on it, then write the results) or ``--collect NAME`` (write them now)."""
    from agents.evaluation.shared import collect as collect_results
    from agents.evaluation.shared import evaluate_shared

    if shared is not None and collect is not None:
        raise ValueError("--shared and --collect do not go together: a worker writes the results when it ends")
    if shared is not None:
        assert dataset is not None
        done = evaluate_shared(maestro, dataset, out, shared, limit=limit, concurrency=concurrency,
                               progress=sys.stderr.isatty())
    else:
        done = collect_results(maestro.store, collect or "", out)
    cli_render.print_summary(done.summary)
    typer.echo(f"results: {out / 'results.jsonl'}\nsummary: {out / 'summary.json'}")
    if done.missing:
        typer.echo(f"incomplete: {done.missing} item(s) have no result yet (workers still running?)", err=True)
        raise typer.Exit(1)


def _warn_if_cannot_sample(maestro: Maestro, sc: int | None) -> None:
    """One line on stderr when self-consistency is asked of a policy that cannot sample (it is asked once)."""
    from agents.evaluation.self_consistency import sampling_warning

    warning = sampling_warning(maestro.policy, sc if sc is not None else maestro.registry.orchestrator.self_consistency)
    if warning:
        typer.echo(f"warning: {warning}", err=True)


@runs_app.command("list")
@friendly_errors
def runs_list(limit: Annotated[int, typer.Option("--limit", min=1, max=1000)] = 20,
              status: Annotated[str | None, typer.Option("--status")] = None,
              search: Annotated[str | None, typer.Option("--search", help="Text in the question.")] = None,
              as_json: Annotated[bool, typer.Option("--json")] = False,
              data_dir: DataDir = None, db: DbOpt = None) -> None:
    """List stored runs, newest first."""
    store = open_store(data_dir, db)
    rows = store.list_runs(limit=limit, status=status, text=search)
    cli_render.print_run_list(rows, as_json)


@runs_app.command("show")
@friendly_errors
def runs_show(run_id: Annotated[str, typer.Argument(help="Run id (or a unique prefix).")],
              as_json: Annotated[bool, typer.Option("--json")] = False,
              data_dir: DataDir = None, db: DbOpt = None) -> None:
    """Show one stored run with every step, tool call and model call (exact prompt and raw reply)."""
    from agents.replay.rerun import find_run

    cli_render.print_stored_run(find_run(open_store(data_dir, db), run_id), as_json)


@app.command("registry")
@friendly_errors
def registry_command(registry: RegistryOpt = None) -> None:
    """Validate the registry and list its experts and skills (and any skill folders that failed to load)."""
    from agents.registry import load_registry

    cli_render.print_registry(load_registry(registry))


@app.command()
@friendly_errors
def web(host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
        port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 7860,
        auth: Annotated[str | None, typer.Option("--auth", help="user:password")] = None,
        share: Annotated[bool, typer.Option("--share/--no-share")] = False,
        data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Launch the web application (same as `python app.py`)."""
    from ui.web import launch

    launch(host=host, port=port, auth=auth, share=share, data_dir=data_dir, registry=registry, db=db)


# Last, once every command is registered: the shared options on every command and sub-command (ui.cli_options).
add_shared_options(app)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``maestro`` console script (and of ``app.py``, as ``maestro web``): exits with the
    command's code; a usage mistake is one line and exit code 2, like every other error."""
    empty = _empty_folder_option(sys.argv[1:] if argv is None else argv)
    if empty:
        typer.echo(f"error: {empty} is empty: name a folder (use . for this one)", err=True)
        sys.exit(2)
    try:
        code = app(args=argv, prog_name="maestro", standalone_mode=False)
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("aborted", err=True)
        sys.exit(130)
    except Exception as exc:
        # Click's usage errors (Typer vendors its own copy of Click, so matched by what they offer, not by class).
        format_message = getattr(exc, "format_message", None)
        if not callable(format_message):
            raise
        context = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and context is not None:
            typer.echo(context.get_help(), err=True)
        else:
            typer.echo(f"error: {one_line(format_message())}", err=True)
        sys.exit(getattr(exc, "exit_code", 2))
    sys.exit(code if isinstance(code, int) else 0)


def _empty_folder_option(args: list[str]) -> str | None:
    """The folder option given as an empty string, if any: as a path "" is ".", so ``--data-dir ""`` (an unset
    shell variable) would silently make a new data directory, or ``--out ""`` write results, in the current one."""
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if name in ("--data-dir", "--out") and not (value if eq else args[i + 1] if i + 1 < len(args) else "x").strip():
            return name
    return None


if __name__ == "__main__":
    main()
