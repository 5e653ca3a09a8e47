"""Calibrations for tests whose subject is not trust (exports, rewards): a data directory in which answers of a
given source have a rated record, so its runs can end ``done`` — what rating such runs would teach
(``agents.trust``, docs/trust.md)."""

from __future__ import annotations

from pathlib import Path

from agents.trust.evidence import Evidence
from agents.trust.fit import Labelled, fit

FORMS = ("choice", "yesno", "count", "grid", "number", "text", "free")


def trust_source(data_dir: Path, *sources: tuple[str, str], forms: tuple[str, ...] = FORMS) -> Path:
    """Write ``data_dir/calibration.json`` with 60 rated answers, all right, for each (source, check) of
    ``sources`` in each of ``forms`` (kinds at the form level, so any skill of that source pools with them)."""
    examples = [Labelled(Evidence(answer="x", form=form, skill=None, level2=None, source=source, check=check,
                                  score=0.95, ocr=0.95), True)
                for source, check in sources for form in forms for _ in range(60)]
    data_dir.mkdir(parents=True, exist_ok=True)
    return fit(examples).save(data_dir / "calibration.json")


def rated_rules(data_dir: Path) -> Path:
    """Write ``data_dir/calibration.json``: the shipped calibration plus 60 rated answers, all right, in each form,
    of the reading rules that keep a record of their own (``skills.ocr.spans.own_record``) — what a team's ratings
    of those rules' answers teach. Tests whose subject is what a rule reads use it; without it the rules abstain."""
    from agents.trust.calibration import Calibration, load
    from agents.trust.evidence import RULE, UNCHECKED

    shipped = load(None)
    assert shipped is not None
    from skills.ocr.spans import READING_RULES

    # Each rule rated on its own: a rule with no labelled answers of its own never answers through the pool.
    examples = [Labelled(Evidence(answer="x", form=form, skill="OCR", level2=None, source="tools", check="verified",
                                  score=0.95, ocr=0.95, detail=f"{RULE}{rule}{UNCHECKED}"), True)
                for rule in READING_RULES for form in FORMS for _ in range(60)]
    rules = fit(examples)
    merged = Calibration({**shipped.groups, **rules.groups}, shipped.delta, dict(shipped.meta))
    data_dir.mkdir(parents=True, exist_ok=True)
    return merged.save(data_dir / "calibration.json")
