"""The paper's reward (section 3.4): R = r_ans + r_fmt, for live runs, stored runs and exported trajectories.

r_ans is 1 when the final ``<answer>`` matches the ground truth under the task's matching rule (``agents.evaluation.answers``),
else 0; r_fmt is −1 when the trajectory breaks any protocol rule (``agents.protocol.validate_trajectory``), else 0.
Ground truth for a stored run comes from its latest rating (a corrected answer, or the run's own answer when rated
correct) or else from the dataset item it was evaluated on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agents.evaluation.answers import MatchRule, match_answer
from agents.protocol import (
    Answer,
    Names,
    Violation,
    format_reward,
    parse_turn,
    render_information,
    validate_trajectory,
)

if TYPE_CHECKING:
    from storage import RunRecord


@dataclass
class Reward:
    r_ans: float
    r_fmt: float
    violations: list[Violation] = field(default_factory=list)
    answer: str | None = None
    ground_truth: str | None = None

    @property
    def total(self) -> float:
        return self.r_ans + self.r_fmt


def final_answer(turns: Sequence[str]) -> str | None:
    """The text of the last ``<answer>`` in a trajectory's policy turns, if any."""
    for turn in reversed(turns):
        action = parse_turn(turn).action
        if isinstance(action, Answer):
            return action.text
    return None


def trajectory_reward(turns: Sequence[str], ground_truth: str, models: Names, skills: Names,
                      kind: MatchRule | None = None) -> Reward:
    """R for a trajectory given as policy turns interleaved with ``<information>`` blocks."""
    violations = validate_trajectory(list(turns), models, skills)
    answer = final_answer([t for t in turns if not t.lstrip().lower().startswith("<information>")])
    r_ans = 1.0 if match_answer(answer, ground_truth, kind) else 0.0
    return Reward(r_ans, format_reward(violations), violations, answer, ground_truth)


def stored_trajectory(record: RunRecord) -> list[str]:
    """The protocol text of a stored run: each step's raw turn, and the ``<information>`` of each search."""
    return record.protocol_text(render_information)


def ground_truth_for(record: RunRecord) -> str | None:
    """The best ground truth a stored run has: latest rating first, then its dataset item's answer."""
    for rating in reversed(record.ratings):
        if rating.step_index is not None:
            continue
        if rating.corrected_answer:
            return rating.corrected_answer
        if rating.verdict == "correct" and record.answer:
            return record.answer
    return record.expected


def run_reward(record: RunRecord, models: Names, skills: Names) -> Reward | None:
    """R for a stored run, or None when the run has no ground truth to judge it by."""
    truth = ground_truth_for(record)
    if truth is None:
        return None
    reward = trajectory_reward(stored_trajectory(record), truth, models, skills)
    latest = next((r for r in reversed(record.ratings) if r.step_index is None), None)
    if latest is not None and not latest.corrected_answer and latest.verdict == "incorrect":
        reward.r_ans = 0.0  # a person said wrong and gave no correction: the answer is not right by definition
    return reward
