"""Fitting a calibration from labelled answers (scikit-learn; imported only by ``maestro calibrate`` and evals).

Per evidence kind with at least ``MIN_GROUP`` labelled answers: a logistic regression on the evidence features
(``calibration.features``), then isotonic regression from its score to the observed rate of right answers
(scikit-learn's ``LogisticRegression`` and ``IsotonicRegression``). Each isotonic step is shrunk towards 1/2 by
one pseudo-observation on each side, so a step of ten right answers says 11/12, not 1.0. A kind whose examples
are nearly all right (fewer than ``MIN_CLASS`` wrong, or right) gets that shrunk rate as a constant. Thresholds per target precision come from
``agents.trust.ltt`` on the same examples.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

from agents.trust import ltt
from agents.trust.calibration import Calibration, Group, _target_name, features
from agents.trust.evidence import Evidence

#: Fewest labelled answers for a kind to get a calibrator of its own (fewer: it pools with its coarser kind).
MIN_GROUP = 10
#: Fewest wrong (and right) answers from which a kind's features are fit; with fewer, one error would draw the
#: whole curve, so the kind gets its shrunk share right as a constant.
MIN_CLASS = 5
#: Target precisions a calibration stores thresholds for (a registry's target uses the nearest stricter one).
TARGETS = (0.8, 0.85, 0.9, 0.95, 0.97, 0.99)
DELTA = 0.1
#: The target at which a kind shown below it is kept out of the coarser kinds' pools (the registry default).
POOLING_TARGET = 0.95


@dataclass(frozen=True)
class Labelled:
    """One answer whose correctness is known: from an evaluation (its expected answer) or a person's rating."""

    evidence: Evidence | None  # None: the run had no candidate answer (it can never answer)
    correct: bool
    split: str = "tuning"  # tuning | validation (``agents.trust.labels.split_of``)
    origin: str = ""  # dataset name or "ratings"
    item: str = ""


def fit(examples: Sequence[Labelled], *, delta: float = DELTA, targets: Sequence[float] = TARGETS,
        meta: dict[str, Any] | None = None) -> Calibration:
    """A calibration fit on ``examples`` (contradicted answers are left out: they never answer)."""
    usable = [e for e in examples if e.evidence is not None and e.evidence.check != "contradicted"]
    groups = _fit_kinds(usable, delta, targets, set())
    # A kind whose own examples show it below the target is decided by them (it abstains); its errors are kept out
    # of the coarser kinds it would pool with, so one bad field does not hold back the kinds that need the pool.
    shown_bad = {key for key, group in groups.items() if group.rule(POOLING_TARGET) == (None, True)}
    if shown_bad:
        groups = _fit_kinds(usable, delta, targets, shown_bad)
    origins = sorted({e.origin for e in examples if e.origin})
    labelled = sum(1 for e in examples if e.evidence is not None)
    info = {"examples": labelled,
            "origins": origins, "targets": list(targets), **(meta or {})}
    fitted = Calibration(groups, delta, info)
    return Calibration.from_json(fitted.to_json())  # with its content-hash version


def _fit_kinds(examples: Sequence[Labelled], delta: float, targets: Sequence[float],
               excluded: set[str]) -> dict[str, Group]:
    by_kind: dict[str, list[Labelled]] = defaultdict(list)
    for example in examples:
        kinds = example.evidence.kinds() if example.evidence is not None else []
        for depth, key in enumerate(kinds):
            if not excluded.intersection(kinds[:depth]):  # not pooled upwards from a kind shown below target
                by_kind[key].append(example)
    return {key: fit_group(key, members, delta, targets) for key, members in by_kind.items()
            if len(members) >= MIN_GROUP}


def fit_group(key: str, members: Sequence[Labelled], delta: float, targets: Sequence[float]) -> Group:
    x = np.array([features(m.evidence) for m in members if m.evidence is not None], dtype=float)
    y = np.array([1 if m.correct else 0 for m in members], dtype=int)
    n, right = len(y), int(y.sum())
    coef: list[float] | None = None
    intercept = 0.0
    if min(right, n - right) >= MIN_CLASS:
        model = LogisticRegression(C=1.0, max_iter=2000).fit(x, y)
        coef, intercept = [round(float(c), 6) for c in model.coef_[0]], round(float(model.intercept_[0]), 6)
        scores = 1.0 / (1.0 + np.exp(-(x @ np.array(coef) + intercept)))
        iso_x, iso_y = _isotonic(scores, y)
    else:
        iso_x, iso_y = [0.0], [round((right + 1) / (n + 2), 4)]
    group = Group(key, n, right, coef, intercept, iso_x, iso_y, {}, {})
    probabilities = [group.predict(m.evidence) for m in members if m.evidence is not None]
    thresholds: dict[str, float | None] = {}
    worse: dict[str, bool] = {}
    for target in targets:
        name = _target_name(target)
        thresholds[name] = ltt.choose_threshold(probabilities, [bool(v) for v in y], target, delta)
        worse[name] = ltt.shown_worse(n, n - right, target, delta)
    most_warnings = max(m.evidence.warnings for m in members if m.evidence is not None)
    return Group(key, n, right, coef, intercept, iso_x, iso_y, thresholds, worse, int(most_warnings))


def _isotonic(scores: np.ndarray, y: np.ndarray) -> tuple[list[float], list[float]]:
    """Isotonic steps of ``y`` on ``scores``, each step's rate shrunk by one pseudo-count on each side; returned
    as interpolation breakpoints (x ascending, y non-decreasing)."""
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(scores, y)
    fitted = iso.predict(scores)
    steps: dict[float, list[int]] = defaultdict(list)
    for value, label in zip(np.round(fitted, 9), y, strict=True):
        steps[float(value)].append(int(label))
    shrunk = {value: (sum(labels) + 1) / (len(labels) + 2) for value, labels in steps.items()}
    xs = [float(v) for v in iso.X_thresholds_]
    ys = [shrunk.get(float(round(v, 9)), float(v)) for v in iso.y_thresholds_]
    ys = list(np.maximum.accumulate(np.array(ys)))  # shrinking small steps must not break monotonicity
    return [round(v, 6) for v in xs], [round(float(v), 4) for v in ys]
