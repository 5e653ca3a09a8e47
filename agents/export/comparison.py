"""Preference pairs from an evaluation comparison: where one run of an item was right and the other wrong.

``maestro eval --baseline`` writes ``comparison.json`` (``agents.evaluation.compare``) listing each changed item with both
runs. When one side answered right and the other answered wrong — judged against the dataset's answer — the two
trajectories of the same image and question make a DPO pair: the right one chosen, the wrong one rejected
(``pair_kind`` ``comparison_right_vs_wrong``). As with rated runs, a chosen trajectory must be valid protocol text
under its own run's registry, and both trajectories are laid out as they ran (``agents.export.prompts``). The
pair's prompt is the chosen run's: the two runs were usually made under different registries (that is what a
comparison compares), so unlike rated pairs their system prompts may differ; the rejected turns are kept as they ran.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agents.evaluation.compare import CHANGES
from agents.evaluation.reward import stored_trajectory
from agents.export import formats as fmt
from agents.export.prompts import Conversation, conversation
from agents.protocol import validate_trajectory
from agents.replay.run_registry import RunRegistries

if TYPE_CHECKING:
    from storage import Store

PAIR_KIND = "comparison_right_vs_wrong"


def comparison_pairs(store: Store, registries: RunRegistries, comparison: dict[str, Any], *,
                     image_paths: Callable[[Conversation], list[str]],
                     skipped: dict[str, int]) -> list[dict[str, Any]]:
    """DPO rows for the right-vs-wrong items of ``comparison``; reasons for leaving an item out go to ``skipped``."""
    rows = []
    for kind in CHANGES:
        for item in comparison.get(kind) or []:
            sides = [item.get("before") or {}, item.get("after") or {}]
            right = next((s for s in sides if s.get("outcome") == "right"), None)
            wrong = next((s for s in sides if s.get("outcome") == "wrong"), None)
            if right is None or wrong is None:
                continue
            chosen, rejected = store.get_run(right.get("run_id") or ""), store.get_run(wrong.get("run_id") or "")
            if chosen is None or rejected is None:
                _count(skipped, "comparison_run_missing")
                continue
            if (chosen.image_id, _words(chosen.question)) != (rejected.image_id, _words(rejected.question)):
                _count(skipped, "comparison_runs_of_different_prompts")
                continue
            if not store.images.exists(chosen.image_id):
                _count(skipped, "image_missing")
                continue
            registry = registries.for_run(chosen)
            if validate_trajectory(stored_trajectory(chosen), registry.model_names, registry.skill_names):
                _count(skipped, "invalid_protocol_not_used_as_positive")
                continue
            chosen_conv = conversation(chosen, registry)
            rejected_conv = conversation(rejected, registries.for_run(rejected))
            rows.append(fmt.dpo_row(chosen, rejected, chosen_conv, rejected_conv, image_paths(chosen_conv),
                                    kind=PAIR_KIND))
    return rows


def _words(text: str) -> str:
    return " ".join(text.split())


def _count(counter: dict[str, int], key: str) -> None:
    counter[key] = counter.get(key, 0) + 1
