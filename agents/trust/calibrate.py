"""``maestro calibrate``'s work: gather labelled answers, fit a calibration, report it per source and split, save it.

``calibrate`` fits on the ``tuning`` split of the evaluation folders (plus every rated run, with ``ratings``) —
or on everything with ``split="all"`` — and reports each dataset's tuning and validation halves apart: coverage and
precision at the per-kind thresholds, ECE, the reliability table and the risk–coverage curve, with PNG plots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.trust import report
from agents.trust.calibration import Calibration
from agents.trust.fit import Labelled, fit
from agents.trust.labels import from_eval_folder, from_ratings

if TYPE_CHECKING:
    from storage import Store


@dataclass
class Calibrated:
    calibration: Calibration
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)  # "<origin> <split>" -> report.summary
    plots: list[Path] = field(default_factory=list)
    saved: Path | None = None

    def text(self) -> str:
        cal = self.calibration
        lines = [f"calibration {cal.version}: {len(cal.groups)} evidence kinds, fit on "
                 f"{cal.meta.get('examples')} labelled answers ({', '.join(cal.meta.get('origins', []))}; "
                 f"split {cal.meta.get('split')}), target precision {cal.meta.get('target')}"]
        lines += [report.format_tables(name, data) for name, data in self.sections.items()]
        if self.plots:
            lines.append("plots: " + ", ".join(str(p) for p in self.plots))
        if self.saved:
            lines.append(f"written: {self.saved}")
        return "\n\n".join(lines)


def gather(folders: Sequence[Path], store: Store | None, ratings: bool) -> list[Labelled]:
    examples: list[Labelled] = []
    for folder in folders:
        examples += from_eval_folder(folder, store)
    if ratings and store is not None:
        examples += from_ratings(store)
    return examples


def calibrate(examples: Sequence[Labelled], *, target: float, split: str = "tuning", out: Path | None = None,
              plots: Path | None = None, base: Calibration | None = None) -> Calibrated:
    """Fit on ``examples`` (their tuning split unless ``split == "all"``), laid over ``base`` when given
    (``Calibration.on``), report, and save to ``out``."""
    if split not in ("tuning", "all"):
        raise ValueError(f"split must be 'tuning' or 'all'; got {split!r}")
    chosen = [e for e in examples if split == "all" or e.split == "tuning"]
    if not any(e.evidence is not None for e in chosen):
        raise ValueError("no labelled answers to fit on: give evaluation folders with candidates, or rated runs")
    calibration = fit(chosen, meta={"split": split, "target": target})
    if base is not None:
        calibration = calibration.on(base)
    result = Calibrated(calibration)
    by_section: dict[str, list[report.Scored]] = {}
    for example in examples:
        for section in (f"{example.origin} {example.split}", f"all {example.split}"):
            by_section.setdefault(section, []).append(score(calibration, example, target))
    for name in sorted(by_section):
        result.sections[name] = report.summary(by_section[name])
    if plots is not None:
        for origin in sorted({e.origin for e in examples}):
            groups = {s.split(" ", 1)[1]: items for s, items in by_section.items() if s.split(" ", 1)[0] == origin}
            result.plots += report.plot(groups, plots, stem=f"{_safe(origin)}_")
    if out is not None:
        result.saved = calibration.save(out)
    return result


def score(calibration: Calibration, example: Labelled, target: float) -> report.Scored:
    """What the calibration says about one labelled example, for the report."""
    if example.evidence is None:
        return report.Scored(None, False, False)
    decision = calibration.decide(example.evidence, target)
    return report.Scored(decision.probability, example.correct, decision.answer)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "set"
