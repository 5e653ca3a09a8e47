"""``maestro handbook show|rebuild``: the router's skill handbook (per expert, skill and Level-2 success and cost).

``ui.cli`` adds ``handbook_app`` to its app as the ``handbook`` command group.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from ui.cli_options import DataDir, DbOpt, RegistryOpt, friendly_errors

if TYPE_CHECKING:
    from agents.config import Settings

handbook_app = typer.Typer(no_args_is_help=True, help="The router's skill handbook: success posteriors and cost.")


@handbook_app.command("rebuild")
@friendly_errors
def rebuild_command(data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Recompute the handbook from every stored run, rating and evaluation result."""
    from agents.config import Settings
    from agents.registry import load_registry
    from agents.routing.handbook import rebuild_handbook
    from storage import open_store

    settings = Settings.resolve(data_dir=data_dir, db_url=db, registry_path=registry)
    loaded = load_registry(settings.registry_path, settings.skills_paths)
    with open_store(settings.data_dir, settings.db_url) as store:
        count = rebuild_handbook(store, loaded)
    typer.echo(f"handbook rebuilt: {count} (expert, skill, Level-2) rows")


@handbook_app.command("show")
@friendly_errors
def show_command(
        skill: Annotated[str | None, typer.Option("--skill", help="Only this skill.")] = None,
        expert: Annotated[str | None, typer.Option("--expert", help="Only this expert.")] = None,
        pooled: Annotated[bool, typer.Option("--pooled", help="One row per (expert, skill), Level-2 pooled.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print the rows as a JSON list.")] = False,
        data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Print the handbook: Beta(α, β), posterior mean, evidence and mean cost per call. With --registry, --skill
    and --expert may be any of that registry's names for them (aliases included)."""
    from agents.config import Settings
    from agents.routing.handbook import handbook_rows, skill_summary
    from storage import open_store

    settings = Settings.resolve(data_dir=data_dir, db_url=db, registry_path=registry)
    if registry is not None:
        skill, expert = _canonical_names(settings, skill, expert)
    with open_store(settings.data_dir, settings.db_url) as store:
        rows = skill_summary(store) if pooled else handbook_rows(store)
    rows = [r for r in rows if (skill is None or r["skill"] == skill) and (expert is None or r["expert"] == expert)]
    if as_json:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not rows:
        typer.echo("the handbook is empty: rate some runs or run an evaluation")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("skill", "Level-2", "expert", "α", "β", "mean", "runs", "calls", "latency ms", "tokens", "money")
    for r in rows:
        table.add_row(r["skill"], r["level2"], r["expert"], f"{r['alpha']:.1f}", f"{r['beta']:.1f}",
                      f"{r['mean']:.3f}", str(r["runs"]), str(r["calls"]), f"{r['latency_ms']:.0f}",
                      f"{r['tokens']:.0f}", f"{r['money']:.4f}")
    Console().print(table)


def _canonical_names(settings: Settings, skill: str | None, expert: str | None) -> tuple[str | None, str | None]:
    """The handbook stores canonical names; the registry knows their aliases (an unknown name is kept as given:
    the handbook may hold experts the registry no longer has)."""
    from agents.registry import load_registry

    loaded = load_registry(settings.registry_path, settings.skills_paths)
    return (skill and (loaded.skill_names.resolve(skill) or skill),
            expert and (loaded.model_names.resolve(expert) or expert))
