"""A fitted calibration: evidence features -> P(correct) per kind of evidence, and the threshold that answers at a
target precision. Evaluated with numpy alone (no scikit-learn on the answering path), stored as small JSON.

The JSON (``maestro-calibration/2``) holds one *group* per evidence kind (``Evidence.kinds``: sub-skill, skill,
form — finest first). A group has a logistic model on the features, an isotonic map from its score to P(correct)
(breakpoints, evaluated by linear interpolation), and per target precision the threshold on P chosen by
Learn-then-Test (``agents.trust.ltt``), or none. Its ``version`` is a content hash, recorded with every run.

``decide`` walks an answer's kinds finest first. The first kind whose data are conclusive at the target rules: it
answers above its threshold, or abstains when its labelled examples show precision below the target. A kind whose
data are inconclusive (too few examples) defers to the next coarser kind, pooling; when none is conclusive, the
answer is withheld for too few rated examples. An answer whose tools raised more warnings than any labelled example
of the ruling kind had lies outside that kind's record and abstains too ("unsupported"). Where a calibration lives: the data directory's
``calibration.json`` (written by ``maestro calibrate``) wins over the one shipped in ``assets/``.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.trust.evidence import Evidence

#: Version 2 groups a receipt field's evidence in any answer form and keeps unchecked readings apart: a version-1
#: file's kind names no longer match, and its fields would answer through coarser pools, so it is refused.
FORMAT = "maestro-calibration/2"
FILENAME = "calibration.json"
SHIPPED = Path(__file__).resolve().parents[2] / "assets" / FILENAME
#: Names of the feature vector's entries, in order (stored with each fit, checked on load).
FEATURES = ("score_logit", "has_score", "ocr_logit", "has_ocr", "margin", "agreement", "vote", "ruled_out",
            "warnings")


def _logit(p: float) -> float:
    p = min(max(p, 1e-3), 1 - 1e-3)
    return math.log(p / (1 - p))


def features(evidence: Evidence) -> list[float]:
    """The calibrator's inputs for one answer's evidence (see ``FEATURES``)."""
    return [
        _logit(evidence.score) if evidence.score is not None else 0.0,
        1.0 if evidence.score is not None else 0.0,
        _logit(evidence.ocr) if evidence.ocr is not None else 0.0,
        1.0 if evidence.ocr is not None else 0.0,
        float(evidence.margin or 0.0),
        float(min(evidence.agreement, 3)),
        float(evidence.vote or 0.0),
        float(evidence.ruled_out or 0.0),
        float(evidence.warnings) / 5.0,
    ]


@dataclass(frozen=True)
class Group:
    """The calibrator of one evidence kind (see the module docstring)."""

    key: str
    n: int
    correct: int
    coef: list[float] | None  # logistic weights on ``features`` (None: a constant model)
    intercept: float
    iso_x: list[float]
    iso_y: list[float]
    thresholds: dict[str, float | None]  # target precision (as "0.95") -> threshold on P, None: no threshold holds
    worse: dict[str, bool]  # target -> the labelled examples show precision below it
    #: The most tool warnings any labelled example of the kind carried (None: not recorded, no check). An answer
    #: with more lies outside what the kind's record speaks for: a kind right 141 times in 141 on clean readings
    #: says nothing of a reading its tool flagged three times.
    max_warnings: int | None = None

    def predict(self, evidence: Evidence) -> float:
        if self.coef is None:
            return float(self.iso_y[0])
        z = float(np.dot(self.coef, features(evidence)) + self.intercept)
        s = 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))
        return float(np.interp(s, self.iso_x, self.iso_y))

    def rule(self, target: float) -> tuple[float | None, bool]:
        """(threshold, stops here) at the stored target nearest above ``target`` (stricter, never laxer). Without a
        threshold, the kind stops the walk to coarser kinds when its own examples show it below the target, or
        merely fall below it (a kind right 22 times in 25 must not borrow the record of better kinds it pools
        with); only a kind consistent with the target defers to the pool."""
        stored = sorted(float(t) for t in self.thresholds)
        at = next((t for t in stored if t >= target - 1e-9), None)
        if at is None:
            return None, True
        name = _target_name(at)
        threshold = self.thresholds.get(name)
        stops = bool(self.worse.get(name)) or self.correct < at * self.n
        return threshold, threshold is None and stops

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "correct": self.correct, "coef": self.coef, "intercept": self.intercept,
                "iso_x": self.iso_x, "iso_y": self.iso_y, "thresholds": self.thresholds, "worse": self.worse,
                "max_warnings": self.max_warnings}

    def supports(self, evidence: Evidence) -> bool:
        """Whether the kind's labelled examples cover ``evidence``: no more tool warnings than any of them had."""
        return self.max_warnings is None or evidence.warnings <= self.max_warnings

    @classmethod
    def from_dict(cls, key: str, data: dict[str, Any]) -> Group:
        return cls(key, int(data["n"]), int(data["correct"]), data.get("coef"), float(data.get("intercept", 0.0)),
                   [float(x) for x in data["iso_x"]], [float(y) for y in data["iso_y"]],
                   {str(k): (None if v is None else float(v)) for k, v in data["thresholds"].items()},
                   {str(k): bool(v) for k, v in data.get("worse", {}).items()},
                   None if data.get("max_warnings") is None else int(data["max_warnings"]))


@dataclass(frozen=True)
class Decision:
    """What the calibration says about one answer."""

    probability: float | None  # P(correct) for its kind (None: no kind has data)
    threshold: float | None  # the kind's threshold at the target (None: it cannot answer)
    kind: str | None  # the evidence kind whose data decided
    answer: bool
    why: str  # answer | below | worse | too_few | unsupported (more tool warnings than the kind's examples had)

    def to_dict(self) -> dict[str, Any]:
        return {"probability": self.probability, "threshold": self.threshold, "kind": self.kind,
                "answer": self.answer, "why": self.why}


@dataclass(frozen=True)
class Calibration:
    """A whole fitted calibration (``groups`` by evidence kind) with its content-hash ``version``."""

    groups: dict[str, Group]
    delta: float
    meta: dict[str, Any]
    version: str = ""

    def decide(self, evidence: Evidence, target: float) -> Decision:
        if evidence.check == "contradicted":  # the tools read something else: never answered
            return Decision(None, None, None, False, "contradicted")
        kinds = evidence.kinds()
        if evidence.rule is not None and kinds and kinds[0] not in self.groups:
            # A reading rule with no labelled answers of its own borrows no other rule's record: the pool of all
            # rules may be one rule's examples (opening hours, from the notices benchmark), which say nothing of
            # how another rule reads a sign.
            return Decision(None, None, None, False, "too_few")
        for key in kinds:
            group = self.groups.get(key)
            if group is None:
                continue
            threshold, worse = group.rule(target)
            if threshold is not None:
                p = round(group.predict(evidence), 4)
                if not group.supports(evidence):
                    return Decision(p, threshold, key, False, "unsupported")
                return Decision(p, threshold, key, p >= threshold, "answer" if p >= threshold else "below")
            if worse:
                return Decision(round(group.predict(evidence), 4), None, key, False, "worse")
        return Decision(None, None, None, False, "too_few")

    def on(self, base: Calibration) -> Calibration:
        """This calibration laid over ``base``: a kind fit here replaces base's only when it rests on at least as
        many labelled answers, and base's other kinds stay. A team's ratings of the reading rules' answers add those
        kinds to the shipped calibration without refitting its kinds from fewer examples."""
        groups = dict(base.groups)
        for key, group in self.groups.items():
            if key not in groups or group.n >= groups[key].n:
                groups[key] = group
        return Calibration(groups, self.delta, {**self.meta, "on": base.version})

    def to_json(self) -> str:
        body = {"format": FORMAT, "features": list(FEATURES), "delta": self.delta, "meta": self.meta,
                "groups": {k: g.to_dict() for k, g in sorted(self.groups.items())}}
        return json.dumps({"version": content_version(body), **body}, indent=1, sort_keys=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Calibration:
        data = json.loads(text)
        if str(data.get("format", "")).startswith("maestro-calibration/") and data.get("format") != FORMAT:
            raise ValueError(f"fit by an older Maestro ({data.get('format')}, whose evidence kinds differ from "
                             f"{FORMAT})")
        if data.get("format") != FORMAT or list(data.get("features", [])) != list(FEATURES):
            raise ValueError(f"not a {FORMAT} calibration with features {FEATURES}")
        body = {k: v for k, v in data.items() if k != "version"}
        groups = {k: Group.from_dict(k, g) for k, g in data["groups"].items()}
        return cls(groups, float(data["delta"]), dict(data.get("meta", {})), content_version(body))

    def save(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = self.to_json()
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        return path


def content_version(body: dict[str, Any]) -> str:
    """The calibration's version: a hash of its content (so two equal fits share a version)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def _target_name(target: float) -> str:
    return f"{target:.4g}"


def load(data_dir: Path | None = None) -> Calibration | None:
    """The calibration answering uses: ``<data_dir>/calibration.json`` when present, else the shipped one
    (None when neither exists). A damaged data-directory file is an error, not silently ignored."""
    for path in ([Path(data_dir) / FILENAME] if data_dir else []) + [SHIPPED]:
        if path.is_file():
            try:
                return Calibration.from_json(path.read_text(encoding="utf-8"))
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}: unreadable calibration ({exc}); refit it with `maestro calibrate`") from exc
    return None
