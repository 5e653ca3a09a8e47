"""Why a policy chose the (expert, skill) pair of a turn: one type, made by the policies, read by the UI.

The router and the keyword policy fill it when they choose a pair; the VLM policy records which model wrote the
turn. The loop stores ``to_dict()`` on the step (``Step.routing``: storage keeps plain JSON and imports nothing of
``agents``) and every reader turns the stored dict back into a ``RoutingDecision`` with ``from_dict``, so the keys
are named once, here. Keys a policy records that have no field here are kept in ``extra``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Stored keys whose field name differs (``lambda`` is a Python keyword).
_RENAMED = {"lambda": "cost_weight"}


@dataclass
class RoutingDecision:
    """One turn's routing record. Only ``policy`` is always set; the router fills the learned parts."""

    policy: str
    #: The pair chosen; None for a turn that is not a search (the VLM policy records the turn's writer instead).
    expert: str | None = None
    skill: str | None = None
    level2: str | None = None
    #: Why this skill, in words (keywords, embeddings, the image's look, learned success).
    skill_reason: str | None = None
    #: Why this expert, in words (posterior mean or Thompson sample, minus λ × cost).
    expert_reason: str | None = None
    #: How the skill was inferred ("embedding+keyword", "keyword").
    skill_method: str | None = None
    #: The keyword policy's relevance score of the chosen skill.
    skill_score: float | None = None
    #: Per-skill relevance scores (the router): {skill: {"score", "keyword", "embedding", ...}}.
    skill_scores: dict[str, dict[str, float]] = field(default_factory=dict)
    #: Per plausible skill, what past verdicts on similar questions say (``agents.routing.evidence``).
    skill_evidence: dict[str, dict[str, float]] = field(default_factory=dict)
    #: How much more learned success another skill needs to be preferred to the most relevant one.
    relevance_margin: float | None = None
    #: λ, the weight of cost against expected success (stored as ``lambda``).
    cost_weight: float | None = None
    #: Whether the expert was chosen by a Thompson sample rather than the posterior mean.
    explore: bool | None = None
    #: Every expert considered for the skill: {"expert", "value", "cost_norm", "score", "alpha", "beta", ...}.
    candidates: list[dict[str, Any]] = field(default_factory=list)
    #: Anything else the policy recorded (the VLM policy: "orchestrator", "temperature").
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The stored form: the fields that are set, under their stored names, then ``extra``."""
        out: dict[str, Any] = {}
        for name, value in vars(self).items():
            if name == "extra" or value is None or value == [] or value == {}:
                continue
            out["lambda" if name == "cost_weight" else name] = value
        return {**out, **self.extra}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> RoutingDecision | None:
        """A stored routing record back as a decision; None when nothing was recorded (or it is not a dict)."""
        if not isinstance(data, dict) or not data:
            return None
        known = {f for f in cls.__dataclass_fields__ if f != "extra"}
        values: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, value in data.items():
            name = _RENAMED.get(key, key)
            (values if name in known else extra)[name if name in known else key] = value
        values.setdefault("policy", str(extra.pop("policy", "") or ""))
        return cls(**values, extra=extra)
