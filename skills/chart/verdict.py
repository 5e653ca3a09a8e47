"""A verdict on one multiple-choice option, and the arithmetic that turns margins into how sure a verdict is.

A comparison is called only when the gap between the two readings is well beyond their uncertainty; an
approximate claim ("about 45 %", "nearly four times") is true within a tolerance, false well outside it and
undecided in between. Strengths are 0-1 and combine by their minimum: a verdict is as sure as its weakest reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from skills.chart.facts import Reading

Status = Literal["true", "false", "unknown"]
#: How many combined uncertainties a gap must exceed before a comparison is called.
MIN_Z = 1.5


@dataclass(frozen=True)
class Verdict:
    """What the chart's readings say about one option."""

    status: Status
    strength: float  # 0-1: how far the evidence is from the boundary, times the trust in the readings
    why: str
    kind: str = "data"  # "data" (checked against the table) | "cannot" (says the chart cannot tell) | "judgement"

    @staticmethod
    def unknown(why: str, kind: str = "judgement") -> Verdict:
        return Verdict("unknown", 0.0, why, kind)


def compare(a: Reading, b: Reading, claim_greater: bool, what: str) -> Verdict:
    """The claim that ``a`` is greater (``claim_greater``) or smaller than ``b``."""
    gap = a.value - b.value
    z = abs(gap) / max(a.sigma + b.sigma, 1e-9)
    trust = min(a.trust, b.trust)
    if z < MIN_Z:
        return Verdict("unknown", 0.0, f"{what}: {a.value:g} vs {b.value:g} is too close to call")
    holds = (gap > 0) == claim_greater
    return Verdict("true" if holds else "false", trust * margin_strength(z),
                   f"{what}: {a.value:g} vs {b.value:g}")


def approximately(value: float, target: float, sigma: float, trust: float, what: str, tol: float = 0.1,
                  far: float = 0.2) -> Verdict:
    """``value`` is about ``target``: true within ``tol`` (relative), false beyond ``far``, else undecided."""
    scale = max(abs(target), 1e-9)
    error = max(0.0, abs(value - target) - sigma) / scale
    if error <= tol:
        return Verdict("true", trust * (1.0 - 0.5 * error / far), f"{what}: {value:.4g} ≈ {target:g}")
    if error >= far:
        return Verdict("false", trust * min(1.0, 0.75 + 0.25 * error / far), f"{what}: {value:.4g} is not ≈ {target:g}")
    return Verdict("unknown", 0.0, f"{what}: {value:.4g} is neither clearly near nor far from {target:g}")


def threshold(value: Reading, limit: float, claim_above: bool, what: str) -> Verdict:
    """``value`` is above (``claim_above``) or below ``limit``."""
    gap = value.value - limit
    z = abs(gap) / max(value.sigma, 1e-9)
    if z < MIN_Z:
        return Verdict("unknown", 0.0, f"{what}: {value.value:g} is too close to {limit:g} to call")
    holds = (gap > 0) == claim_above
    return Verdict("true" if holds else "false", value.trust * margin_strength(z),
                   f"{what}: {value.value:g} vs {limit:g}")


def margin_strength(z: float) -> float:
    """How sure a call is at ``z`` uncertainties from the boundary: 0.8 at the minimum gap, 1 from 6 up."""
    return min(1.0, 0.8 + 0.2 * (z - MIN_Z) / (6.0 - MIN_Z))
