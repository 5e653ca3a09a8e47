"""``maestro export``: training files (SFT, DPO, KTO, GRPO, verl) and the live ratings from stored runs.

A plain function that ``ui.cli`` registers on its app; the work is ``agents.export.training_data.export``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ui.cli_options import DataDir, DbOpt, RegistryOpt, friendly_errors


@friendly_errors
def export_command(
        out: Annotated[Path | None, typer.Option("--out", help="Folder for the files (default "
                                                              "<data-dir>/exports/<timestamp>-<random>).")] = None,
        formats: Annotated[list[str] | None, typer.Option("--format", help=(
            "sft, sft_experts, dpo, kto, grpo, verl, ratings, labels, grounding (people's box corrections) or "
            "grounding_experts (experts' boxes in runs rated correct); repeat for several (default all)."))] = None,
        since: Annotated[str | None, typer.Option("--since", help="Only runs from this ISO date/time on.")] = None,
        until: Annotated[str | None, typer.Option("--until", help="Only runs up to this ISO date/time.")] = None,
        rating: Annotated[str | None, typer.Option("--rating", help="correct, incorrect, partial or unrated "
                                                                    "(latest verdict).")] = None,
        skill: Annotated[str | None, typer.Option("--skill", help="Only runs that called this skill.")] = None,
        model: Annotated[str | None, typer.Option("--model", help="Only runs that called this expert.")] = None,
        dataset: Annotated[str | None, typer.Option("--dataset", help="Only runs of this evaluation set (its "
                                                                      "items become RL prompts too).")] = None,
        comparison: Annotated[Path | None, typer.Option("--comparison", help="An evaluation's comparison.json "
                                                        "(or its folder): right-vs-wrong items become DPO pairs.")] = None,
        processor: Annotated[str | None, typer.Option("--processor", help="Model folder or id whose processor "
                                                      "counts DPO tokens (the model to be trained).")] = None,
        max_length: Annotated[int | None, typer.Option("--max-length", min=1, help="The trainer's max_length: DPO "
                                                       "pairs identical within it are dropped and reported.")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the manifest as JSON.")] = False,
        data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Write training data from stored runs and ratings, with images and a manifest.json."""
    from agents.config import Settings
    from agents.export.training_data import FORMATS, default_export_dir, export
    from agents.registry import load_registry
    from storage import open_store

    settings = Settings.resolve(data_dir=data_dir, db_url=db, registry_path=registry)
    chosen = [f.strip().lower() for item in (formats or FORMATS) for f in item.split(",") if f.strip()]
    loaded = load_registry(settings.registry_path, settings.skills_paths)
    with open_store(settings.data_dir, settings.db_url) as store:
        manifest = export(store, loaded, out or default_export_dir(settings.data_dir), formats=chosen, since=since,
                          until=until, rating=rating, skill=skill, model=model, dataset=dataset,
                          comparison=comparison, processor=processor, max_length=max_length)
    typer.echo(json.dumps(manifest.to_dict(), indent=2, ensure_ascii=False) if as_json else manifest.summary())
