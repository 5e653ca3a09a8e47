"""verl's custom reward hook for Maestro rollouts: R = r_ans + r_fmt (paper eq. 9), via ``agents.evaluation.reward``.

verl loads this file by path (``custom_reward_function.path``) and calls ``compute_score(data_source, solution_str,
ground_truth, extra_info)`` once per rollout, with ``solution_str`` the decoded response: the policy's turns with
the ``<information>`` blocks the agent loop inserted, possibly with chat-template role lines between them. Those
lines are text outside the protocol tags, which the validator reports as a warning and never as a violation.

Model and skill names come from the row's ``extra_info["registry_names"]`` (written by ``maestro export``), so the
reward needs no registry file on the GPU host; without them the registry named by ``MAESTRO_REGISTRY`` (or the
bundled one) is loaded once.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

_REPO = Path(__file__).resolve().parent.parent
if str(_REPO) not in sys.path:  # verl imports this file by path, from its own working folder
    sys.path.insert(0, str(_REPO))

from agents.evaluation.reward import trajectory_reward  # noqa: E402
from agents.protocol import Names, split_trajectory  # noqa: E402

# Chat-template markers a decoder may leave in when special tokens are kept (Qwen style and the like).
_TEMPLATE_MARKERS = re.compile(r"<\|[a-z_]+\|>")
_KINDS = {"grid", "yesno", "choice", "numeric", "exact", "contains"}


@functools.lru_cache(maxsize=64)
def _names_from_json(text: str) -> tuple[Names, Names]:
    data = json.loads(text)
    return Names(data["models"]), Names(data["skills"])


@functools.lru_cache(maxsize=1)
def _names_from_registry() -> tuple[Names, Names]:
    from agents.registry import load_registry

    registry = load_registry(os.environ.get("MAESTRO_REGISTRY") or None)
    return registry.model_names, registry.skill_names


def _names(extra_info: dict[str, Any] | None) -> tuple[Names, Names]:
    text = (extra_info or {}).get("registry_names")
    return _names_from_json(text) if text else _names_from_registry()


def score(solution_str: str, ground_truth: str, extra_info: dict[str, Any] | None = None) -> dict[str, Any]:
    """The reward and its parts for one rollout (``score`` is what verl reads from a dict result)."""
    models, skills = _names(extra_info)
    text = _TEMPLATE_MARKERS.sub("\n", str(solution_str))
    kind = (extra_info or {}).get("match_kind") or None
    turns = [item for _, item in split_trajectory(text)]
    reward = trajectory_reward(turns, str(ground_truth), models, skills, kind if kind in _KINDS else None)
    return {"score": reward.total, "r_ans": reward.r_ans, "r_fmt": reward.r_fmt,
            "acc": float(reward.r_ans), "violations": float(len(reward.violations))}


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict[str, Any] | None = None,
                  **kwargs: Any) -> dict[str, Any]:
    """verl's entry point: R = r_ans + r_fmt for one decoded response, with its parts for logging."""
    return score(solution_str, ground_truth, extra_info)
