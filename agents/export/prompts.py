"""The exact conversation a stored run's orchestrator saw, and the exact prompts its experts were sent, as rows.

A model trained on exported data must be asked, at inference, exactly what it learned from. So a trajectory is
laid out from what the run itself stored, whatever registry is loaded when exporting:

- A run with a VLM orchestrator stored the exact messages of every orchestrator call (``Step.model_calls``,
  role ``orchestrator``). Its last call holds the whole context up to the final turn: the system prompt as it was
  generated then, the image and question, every earlier turn and ``<information>`` observation as truncated then,
  and the repair and turn-limit notes. That is the conversation; the final turn is appended (``stored_prompt``).
- A run without one (the keyword and router policies write protocol text without a model) gets the conversation
  the VLM orchestrator would have been sent, generated from the run's own registry snapshot
  (``agents.replay.run_registry``) and its turn limit: the same layout ``agents.policies.vlm`` uses (``run_snapshot``,
  or ``loaded_registry_fallback`` for runs older than snapshots).

Images are content ids in storage; here they become ``{"type": "image"}`` placeholders and a parallel list of
image ids (the exporter copies the files and writes their relative paths). ``expert_conversations`` gives the
exact prompt and raw reply of the expert calls that produced a run's answer, for expert-level SFT, and
``rl_prompts`` the GRPO/verl prompts with their ground truth (a reviewer's final label first).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agents.evaluation.answers import detect_kind
from agents.evaluation.reward import ground_truth_for
from agents.export import formats as fmt
from agents.policies.vlm import observation_budget
from agents.prompts import system_prompt
from agents.replay.run_registry import RunRegistry
from storage.trace import ModelCall, RunRecord, Step

if TYPE_CHECKING:
    from storage import Store

STORED_PROMPT = "stored_prompt"


@dataclass
class Conversation:
    """A run as training messages: the prompt (context before the first policy turn), the turns after it, the
    image ids its placeholders stand for, and where the prompt came from."""

    prompt: list[dict[str, Any]]
    turns: list[dict[str, Any]]
    image_ids: list[str] = field(default_factory=list)
    source: str = STORED_PROMPT

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.prompt + self.turns

    def prompt_key(self) -> str:
        """A fingerprint of the prompt and its images: two trajectories form a preference pair only when equal."""
        text = json.dumps([self.prompt, self.image_ids], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def training_message(message: dict[str, Any], train: bool, image_ids: list[str]) -> dict[str, Any]:
    """A stored chat message (images by content id) as a training message; its image ids go to ``image_ids``."""
    content = message.get("content")
    parts = content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]
    out = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "image":
            if part.get("image_id"):
                image_ids.append(str(part["image_id"]))
            out.append({"type": "image", "text": None})
        elif part.get("type") == "text":
            out.append({"type": "text", "text": str(part.get("text") or "")})
    return {"role": str(message.get("role")), "content": out, "train": train}


def _orchestrator_call(step: Step) -> ModelCall | None:
    calls = [c for c in step.model_calls if c.role == "orchestrator" and c.messages]
    return calls[-1] if calls else None


def _from_stored_call(record: RunRecord, call: ModelCall, final_text: str | None) -> Conversation | None:
    """The conversation from the last orchestrator call's exact messages; None when they do not fit the steps."""
    image_ids: list[str] = []
    messages = [training_message(m, m.get("role") == "assistant", image_ids) for m in call.messages]
    first_user = next((i for i, m in enumerate(messages) if m["role"] == "user"), None)
    earlier = sum(1 for m in messages if m["role"] == "assistant")
    if first_user is None or earlier != len(record.steps) - 1:
        return None  # not the call of the final turn: rebuilding from the snapshot is the honest fallback
    last = record.steps[-1]
    final = {"role": "assistant", "content": [{"type": "text", "text": final_text or last.raw_text}], "train": True}
    return Conversation(messages[: first_user + 1], messages[first_user + 1:] + [final], image_ids)


def conversation(record: RunRecord, registry: RunRegistry, *, final_text: str | None = None) -> Conversation:
    """The conversation of ``record`` (see module doc); ``final_text`` replaces its final turn (a correction)."""
    last = record.steps[-1] if record.steps else None
    call = _orchestrator_call(last) if last is not None else None
    if call is not None:
        found = _from_stored_call(record, call, final_text)
        if found is not None:
            return found
    max_turns = int((record.config or {}).get("max_turns") or registry.orchestrator.max_turns)
    budget = observation_budget(registry.orchestrator)
    prompt = fmt.prompt_messages(system_prompt(registry, max_turns), record.question)
    turns = fmt.policy_messages(record.steps, budget, final_text=final_text)
    return Conversation(prompt, turns, [record.image_id], registry.source)


def expert_conversations(record: RunRecord) -> list[tuple[Step, ModelCall, Conversation]]:
    """The expert calls of the search that produced the run's answer (its last successful search): each exact
    prompt with the raw reply as the target. Failed and empty calls are left out."""
    searches = [s for s in record.steps if s.kind == "search" and s.status == "ok"]
    if not searches:
        return []
    step = searches[-1]
    out = []
    for call in step.model_calls:
        if call.role != "expert" or call.error or not call.raw_reply.strip() or not call.messages:
            continue
        image_ids: list[str] = []
        messages = [training_message(m, False, image_ids) for m in call.messages]
        reply = {"role": "assistant", "content": [{"type": "text", "text": call.raw_reply}], "train": True}
        out.append((step, call, Conversation(messages, [reply], image_ids)))
    return out


def _skip(skipped: dict[str, int], reason: str) -> None:
    skipped[reason] = skipped.get(reason, 0) + 1


def rl_prompts(judged: Sequence[Any], store: Store, dataset: str | None,
               skipped: dict[str, int]) -> list[dict[str, Any]]:
    """One prompt per distinct (image, question) with a ground truth; newest run's truth wins."""
    prompts: dict[tuple[str, str], dict[str, Any]] = {}
    for j in judged:  # newest first, as listed
        record = j.record
        key = (record.image_id, " ".join(record.question.split()))
        truth = _adjudicated_truth(j) if j.label_source == "adjudicated" else ground_truth_for(record)
        if truth is None or not truth.strip():
            _skip(skipped, "no_ground_truth_for_rl")
            continue
        if key in prompts:
            prompts[key]["source"]["run_ids"].append(record.id)
            continue
        skills = [s.skill for s in record.steps if s.kind == "search" and s.skill]
        prompts[key] = {"question": record.question, "image_id": record.image_id, "truth": truth,
                        "kind": detect_kind(truth), "ability": skills[0] if skills else "visual_reasoning",
                        "source": {"run_id": record.id, "run_ids": [record.id], "dataset": record.dataset or "",
                                   "item_id": record.item_id or "",
                                   "truth_from": "adjudicated" if j.label_source == "adjudicated"
                                   else _truth_source(record)}}
    for item in store.dataset_items(dataset) if dataset else []:
        if not (item.image_id and item.answer and store.images.exists(item.image_id)):
            _skip(skipped, "dataset_item_without_image_or_answer")
            continue
        key = (item.image_id, " ".join(item.question.split()))
        if key not in prompts:
            prompts[key] = {"question": item.question, "image_id": item.image_id, "truth": item.answer,
                            "kind": detect_kind(item.answer), "ability": item.category or "visual_reasoning",
                            "source": {"run_id": "", "run_ids": [], "dataset": dataset, "item_id": item.item_id,
                                       "truth_from": "dataset"}}
    return list(prompts.values())


def _adjudicated_truth(j: Any) -> str | None:
    """The ground truth a reviewer's final label gives: their answer, or the run's own when they judged it correct."""
    label = j.label
    if label is not None and label.corrected_answer:
        return label.corrected_answer
    if label is not None and label.verdict == "correct" and j.record.answer:
        return j.record.answer
    return j.record.expected


def _truth_source(record: RunRecord) -> str:
    latest = next((r for r in reversed(record.ratings) if r.step_index is None), None)
    if latest is not None and latest.corrected_answer:
        return "corrected"
    if latest is not None and latest.verdict == "correct" and record.answer:
        return "rated_correct"
    return "dataset"
