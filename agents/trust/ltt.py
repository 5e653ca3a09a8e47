"""Choosing a threshold with a finite-sample guarantee: Learn-then-Test with binomial p-values (Angelopoulos et
al., 2021, "Learn then Test"), fixed-sequence testing from high to low confidence.

For a threshold λ, the answers kept are those with P >= λ; the null hypothesis H_λ says their precision is below
the target, i.e. their error rate exceeds α = 1 − target. With n answers kept and k of them wrong, the exact
binomial p-value is P(Binom(n, α) <= k) (the Clopper–Pearson tail). Hypotheses are tested in a fixed order, from
the highest threshold down, each at level δ; the first that cannot be rejected stops the sequence, and the lowest
rejected λ is chosen. Fixed-sequence testing controls the family-wise error at δ, so with probability at least
1 − δ the chosen threshold's precision is at least the target.

Thresholds above which fewer than ``min_kept(target, delta)`` examples lie can never be rejected (even with no
error); they are skipped before testing. That skip looks at the scores only, never at the labels, so the order of
the sequence stays fixed given the scores. ``shown_worse`` is the other side: the labelled examples of a kind show,
at level δ, that its precision is below the target (so pooling it with better kinds would hide it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from scipy.stats import binom


def min_kept(target: float, delta: float) -> int:
    """Fewest answers (all right) with which the bound can hold: the smallest n with target^n <= delta."""
    return math.ceil(math.log(delta) / math.log(target))


def p_value(n: int, errors: int, target: float) -> float:
    """P(at most ``errors`` wrong of ``n``) if the error rate were exactly 1 − target."""
    return float(binom.cdf(errors, n, 1.0 - target)) if n else 1.0


def choose_threshold(probabilities: Sequence[float], correct: Sequence[bool], target: float,
                     delta: float) -> float | None:
    """The lowest threshold on P whose kept answers have precision >= target with probability >= 1 − delta, by
    fixed-sequence testing from high to low; None when not even the highest testable one holds."""
    pairs = sorted(zip(probabilities, correct, strict=True), key=lambda pair: -pair[0])
    need = min_kept(target, delta)
    chosen: float | None = None
    kept = errors = 0
    i = 0
    while i < len(pairs):
        level = pairs[i][0]
        while i < len(pairs) and pairs[i][0] >= level:  # everything at or above this level is kept together
            kept += 1
            errors += 0 if pairs[i][1] else 1
            i += 1
        if kept < need:
            continue  # untestable: no outcome of so few answers could reject
        if p_value(kept, errors, target) > delta:
            break
        chosen = level
    return chosen


def shown_worse(n: int, errors: int, target: float, delta: float) -> bool:
    """Whether ``errors`` wrong of ``n`` show (at level ``delta``) that precision is below ``target``."""
    return n > 0 and float(binom.sf(errors - 1, n, 1.0 - target)) <= delta
