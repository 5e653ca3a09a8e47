"""What the router has learned from feedback, shrunk so that a handful of verdicts cannot swing it (empirical Bayes).

Two estimates, both Beta-Binomial with a prior mean taken from the level above and a fixed prior strength (in
pseudo-verdicts), so evidence moves an estimate in proportion to how much of it there is:

- ``skill_estimates``: how likely each candidate skill is to succeed on *this* question. Past verdicts (successes
  and failures) of runs that used the skill are weighted by how similar their question is to this one (``weights``
  in [0, 1]). The similar part is the local evidence; the rest is the skill's general record, which shrinks towards
  the record of every skill; and the local evidence shrinks towards the skill's record. Each verdict is counted
  once, in the part its weight puts it: a failure is never used both as the prior and as the evidence.
- ``expert_prior``: the Beta prior of an (expert, skill) pair before its own verdicts: the mean of the expert's
  record on other skills and the skill's record with other experts (each shrunk towards 1/2; neither holds the
  pair's own verdicts), with ``EXPERT_PRIOR_STRENGTH`` pseudo-verdicts. A new pair starts from what is known about
  its parts, not from 1/2.

With no feedback every skill's estimate is the same (1/2), so relevance (keywords, descriptions) decides alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: Pseudo-verdicts behind the prior of every estimate: the weight of the level above against the evidence.
GLOBAL_PRIOR_STRENGTH = 2.0
SKILL_PRIOR_STRENGTH = 4.0
LOCAL_PRIOR_STRENGTH = 4.0
EXPERT_PRIOR_STRENGTH = 4.0
#: Before any verdict, success is as likely as not.
NEUTRAL = 0.5


@dataclass(frozen=True)
class PastVerdict:
    """One past verdict for routing: the question, the (expert, skill) it was credited to, and its success."""

    question: str
    expert: str
    skill: str
    success: float


@dataclass(frozen=True)
class SkillEstimate:
    """A skill's shrunk success estimate for one question and the evidence behind it."""

    skill: str
    value: float  # the estimate: local evidence shrunk towards ``prior``
    prior: float  # the skill's record on other questions, shrunk towards all verdicts
    local_n: float  # similarity-weighted verdicts on questions like this one
    local_successes: float

    def as_dict(self) -> dict[str, float]:
        return {"value": round(self.value, 4), "prior": round(self.prior, 4), "local_n": round(self.local_n, 2),
                "local_successes": round(self.local_successes, 2)}


def shrink(successes: float, n: float, prior: float, strength: float) -> float:
    """The Beta-Binomial posterior mean: ``successes`` of ``n`` pulled towards ``prior`` by ``strength``."""
    return (successes + strength * prior) / (n + strength)


def skill_estimates(outcomes: Sequence[PastVerdict], weights: Sequence[float], skills: Iterable[str]
                    ) -> dict[str, SkillEstimate]:
    """Each of ``skills``' success estimate for a question whose similarity to ``outcomes[i].question`` is
    ``weights[i]`` (see module doc)."""
    far_n = sum(1.0 - w for w in weights)
    far_s = sum((1.0 - w) * o.success for o, w in zip(outcomes, weights, strict=True))
    overall = shrink(far_s, far_n, NEUTRAL, GLOBAL_PRIOR_STRENGTH)
    out = {}
    for skill in skills:
        mine = [(o.success, w) for o, w in zip(outcomes, weights, strict=True) if o.skill == skill]
        prior = shrink(sum((1 - w) * s for s, w in mine), sum(1 - w for _, w in mine), overall,
                       SKILL_PRIOR_STRENGTH)
        local_n, local_s = sum(w for _, w in mine), sum(w * s for s, w in mine)
        out[skill] = SkillEstimate(skill, shrink(local_s, local_n, prior, LOCAL_PRIOR_STRENGTH), prior, local_n,
                                   local_s)
    return out


def expert_prior(outcomes: Sequence[PastVerdict], expert: str, skill: str) -> tuple[float, float]:
    """The Beta(α, β) prior of (``expert``, ``skill``) from the other pairs' verdicts (see module doc)."""
    others = [o.success for o in outcomes if o.expert == expert and o.skill != skill]
    peers = [o.success for o in outcomes if o.skill == skill and o.expert != expert]
    mean = (shrink(sum(others), len(others), NEUTRAL, GLOBAL_PRIOR_STRENGTH)
            + shrink(sum(peers), len(peers), NEUTRAL, GLOBAL_PRIOR_STRENGTH)) / 2
    return mean * EXPERT_PRIOR_STRENGTH, (1.0 - mean) * EXPERT_PRIOR_STRENGTH
