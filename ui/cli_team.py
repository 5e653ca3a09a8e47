"""``maestro team assign|disagreements|adjudicate|stats``: a labelling team's work from the command line (the Review
tab's actions, on the same storage: ``storage.team``).

Whoever can run the CLI on the data directory owns it, so no role is checked here; the web app and its API check
the reviewer role on the server. ``ui.cli`` adds ``team_app`` as the ``team`` command group.
"""

from __future__ import annotations

import getpass
import os
from typing import TYPE_CHECKING, Annotated

import typer

from ui.cli_options import DataDir, DbOpt, friendly_errors

if TYPE_CHECKING:
    from storage import Store

team_app = typer.Typer(no_args_is_help=True, help="Assignment with overlap k, disagreements and final labels.")


def _store(data_dir: DataDir, db: DbOpt) -> Store:
    from agents.config import Settings
    from storage import open_store

    settings = Settings.resolve(data_dir=data_dir, db_url=db)
    return open_store(settings.data_dir, settings.db_url)


def _me() -> str:
    return os.environ.get("MAESTRO_RATER") or getpass.getuser()


@team_app.command("assign")
@friendly_errors
def assign_command(
        to: Annotated[str, typer.Option("--to", help="Annotators, comma-separated.")],
        run_ids: Annotated[list[str] | None, typer.Argument(help="Runs to assign (default: every finished run "
                                                                 "of --dataset, or of all).")] = None,
        overlap: Annotated[int, typer.Option("--overlap", "-k", help="Annotators per run.")] = 2,
        dataset: Annotated[str | None, typer.Option("--dataset", help="Only this evaluation set's runs.")] = None,
        data_dir: DataDir = None, db: DbOpt = None) -> None:
    """Give each run to OVERLAP annotators in all (the least loaded first)."""
    from storage import team

    with _store(data_dir, db) as store:
        runs = list(run_ids or []) or [r.id for r in store.list_runs(limit=1_000_000, dataset=dataset)
                                       if r.status in ("done", "abstained")]
        added = team.assign(store, runs, to.split(","), overlap, by=_me())
    typer.echo(f"{len(runs)} runs, overlap {overlap}: {added} new assignments")


@team_app.command("disagreements")
@friendly_errors
def disagreements_command(data_dir: DataDir = None, db: DbOpt = None) -> None:
    """Runs whose annotators disagree and that no final label settles yet."""
    from storage import team

    with _store(data_dir, db) as store:
        for item in team.disagreements(store, limit=10_000):
            labels = "; ".join(f"{n} {v}" + (f" ({c})" if c else "") for n, (v, c) in sorted(item.labels.items()))
            typer.echo(f"{item.run_id}  {item.question[:60]!r}  {labels}")


@team_app.command("adjudicate")
@friendly_errors
def adjudicate_command(
        run_id: Annotated[str, typer.Argument(help="The run to settle.")],
        verdict: Annotated[str, typer.Option("--verdict", help="correct, incorrect or partial.")],
        reason: Annotated[str, typer.Option("--reason", help="Why (required).")],
        answer: Annotated[str | None, typer.Option("--answer", help="The final answer, when the run's is wrong.")]
        = None,
        data_dir: DataDir = None, db: DbOpt = None) -> None:
    """Store the final label the exports use for RUN_ID."""
    from storage import team

    with _store(data_dir, db) as store:
        final = team.adjudicate(store, run_id, reviewer=_me(), verdict=verdict, final_answer=answer, reason=reason)
    typer.echo(f"final label for {final.run_id}: {final.verdict} by {final.reviewer}")


@team_app.command("stats")
@friendly_errors
def stats_command(data_dir: DataDir = None, db: DbOpt = None) -> None:
    """Per annotator: done, assigned, time per item and Cohen's κ with each colleague."""
    from storage import team

    with _store(data_dir, db) as store:
        for s in team.annotator_stats(store):
            pace = "-" if s.seconds_per_item is None else f"{s.seconds_per_item:.1f} s"
            kappa = ", ".join(f"{o} {'n/a' if k is None else f'{k:.2f}'}" for o, k in s.kappa.items()) or "-"
            typer.echo(f"{s.name}: {s.done} done, {s.assigned_done}/{s.assigned} assigned, {pace} per item, "
                       f"κ {kappa}")
