"""``maestro calibrate``: fit the confidence calibration from evaluation folders and/or ratings.

A plain function that ``ui.cli`` registers on its app; the work is ``agents.trust.calibrate``. It prints the
reliability table and the risk–coverage curve per dataset and split, saves both as PNGs, and writes the
calibration into the data directory (``<data-dir>/calibration.json``), where it takes precedence over the shipped
one from the next run on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ui.cli_options import DataDir, DbOpt, RegistryOpt, friendly_errors, settings


@friendly_errors
def calibrate_command(
        folders: Annotated[list[Path] | None, typer.Argument(help="Evaluation folders (results.jsonl + eval.json "
                                                                  "naming the dataset).")] = None,
        from_ratings: Annotated[bool, typer.Option("--from-ratings", help="Also learn from the rated runs in the "
                                                                          "data directory.")] = False,
        split: Annotated[str, typer.Option("--split", help="tuning: fit on the tuning split and report validation "
                                                           "apart; all: fit on everything.")] = "tuning",
        out: Annotated[Path | None, typer.Option("--out", help="Write the calibration here instead of "
                                                              "<data-dir>/calibration.json.")] = None,
        plots: Annotated[Path | None, typer.Option("--plots", help="Folder for the PNG plots (default "
                                                                  "<data-dir>/calibration-plots).")] = None,
        on_shipped: Annotated[bool | None, typer.Option(
            "--on-shipped/--alone", help="Lay the fit over the shipped calibration (kinds the new examples do not "
                                         "cover as well keep the shipped fit) or fit alone. Default: over the "
                                         "shipped one when learning from ratings only.")] = None,
        data_dir: DataDir = None, registry: RegistryOpt = None, db: DbOpt = None) -> None:
    """Fit P(correct) per kind of evidence and the thresholds for the registry's target precision."""
    from agents.registry import load_registry
    from agents.trust.calibrate import calibrate, gather
    from agents.trust.calibration import FILENAME, load
    from storage import open_store

    if not folders and not from_ratings:
        raise ValueError("give one or more evaluation folders, or --from-ratings")
    for folder in folders or []:
        if not (folder / "results.jsonl").is_file():
            raise ValueError(f"{folder}: not an evaluation folder (no results.jsonl)")
    resolved = settings(data_dir, registry, db)
    target = load_registry(resolved.registry_path, resolved.skills_paths).orchestrator.target_precision
    with open_store(resolved.data_dir, resolved.db_url) as store:
        examples = gather(folders or [], store, from_ratings)
    base = load(None) if (on_shipped if on_shipped is not None else not folders) else None
    result = calibrate(examples, target=target, split=split, out=out or resolved.data_dir / FILENAME,
                       plots=plots or resolved.data_dir / "calibration-plots", base=base)
    typer.echo(result.text())
