"""Row builders for the training exports: one stored run (or prompt) in, one plain-JSON row out; no I/O here.

Every conversation is laid out exactly as the VLM orchestrator sees it at inference (``agents.policies.vlm``): the
system prompt, a user turn holding the image and ``Question: …``, then each policy turn as an assistant message and
each ``<information>`` observation as a user message (truncated to the same budget), with the same force-answer and
repair notes. ``agents.export.prompts`` takes them from the run's own stored orchestrator prompts, or builds them
here (``prompt_messages``, ``policy_messages``) from the run's registry snapshot; so a model trained on these rows
is asked, at inference, exactly what it learned.

Every message carries ``train``: True only on the policy's own turns. It is the paper's action mask (eq. 8):
system, question, observations and notes are context, never targets. Images are referenced by relative path
(``images/<sha256>.<ext>``) and a ``{"type": "image"}`` placeholder, the layout TRL's vision collators read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agents.policies.vlm import FORCE_ANSWER, REPAIR
from agents.protocol import Answer, parse_turn, render_information, render_turn, truncate_observation

if TYPE_CHECKING:
    from agents.registry import Registry
    from storage import RunRecord, Step

#: ``data_source`` of verl rows; the reward function accepts any value, this names where rows came from.
DATA_SOURCE = "maestro"
#: The verl agent loop (training/maestro_agent_loop.py) that rows ask for through ``agent_name``.
AGENT_NAME = "maestro_agent"


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _message(role: str, parts: list[dict[str, Any]], train: bool) -> dict[str, Any]:
    return {"role": role, "content": parts, "train": train}


def prompt_messages(system: str, question: str) -> list[dict[str, Any]]:
    """The two context messages every row starts with: the system prompt, then the image and the question."""
    return [_message("system", [_text(system)], False),
            _message("user", [{"type": "image", "text": None}, _text(f"Question: {question}")], False)]


#: The reasoning of a corrected final turn whose own reasoning argued for the answer it replaces: the row must not
#: teach "settled it: 65.1" followed by <answer>65</answer>. It claims nothing beyond what the turn concludes.
CORRECTED_THINK = "Weighing the evidence above, the answer is {answer}."
WITHHELD_THINK = "The evidence above does not settle the question."


def final_turn_with(raw: str, answer: str, *, withheld: bool = False) -> str | None:
    """``raw`` (a final answer turn) with its answer replaced by ``answer``; None if unusable.

    Its reasoning is kept when it does not name the answer being replaced; when it does (it argued for that
    answer), it is replaced by a short one consistent with ``answer`` (``withheld``: the answer is an abstention)."""
    parsed = parse_turn(raw)
    if not isinstance(parsed.action, Answer) or parsed.think is None or not answer.strip():
        return None
    think = parsed.think
    old = parsed.action.text.strip()
    if old and _names(think, old) and " ".join(old.split()).lower() != " ".join(answer.split()).lower():
        think = WITHHELD_THINK if withheld else CORRECTED_THINK.format(answer=answer.strip())
    return render_turn(think, Answer(answer))


def _names(text: str, answer: str) -> bool:
    """Whether ``text`` states ``answer`` as a whole token (65 is not named by 65.1, nor "cat" by "category")."""
    return re.search(r"(?<![\w.])" + re.escape(answer) + r"(?![\w]|\.\d)", text, re.IGNORECASE) is not None


def policy_messages(steps: Sequence[Step], observation_budget: int, *,
                    final_text: str | None = None) -> list[dict[str, Any]]:
    """The turns after the question: the policy's (trained) and the system's replies (masked).

    ``final_text`` replaces the last step's text (a corrected answer); the notes the loop showed the policy
    (repair after a malformed turn, the turn-limit notice before a forced answer) are kept as masked user turns.
    """
    out: list[dict[str, Any]] = []
    last = len(steps) - 1

    def information(observation: str) -> str:
        return render_information(truncate_observation(observation, observation_budget))

    for i, step in enumerate(steps):
        if step.status == "forced":
            out.append(_message("user", [_text(FORCE_ANSWER)], False))
        turn = step if (i != last or final_text is None) else replace(step, raw_text=final_text)
        # The policy's own turns are trained on; the system's replies are context (masked).
        out.extend({**m, "train": m["role"] == "assistant"} for m in turn.to_messages(information))
        if step.kind != "search" and step.status == "error" and i != last:
            out.append(_message("user", [_text(REPAIR.format(error=step.error))], False))
    return out


def protocol_turns(messages: Sequence[dict[str, Any]]) -> list[str]:
    """The protocol text of a conversation's tail: assistant turns and ``<information>`` blocks, in order."""
    turns = []
    for message in messages:
        text = "".join(part.get("text") or "" for part in message["content"] if part.get("type") == "text")
        if message["role"] == "assistant" or text.startswith("<information>"):
            turns.append(text)
    return turns


def run_columns(record: RunRecord, conv: Any) -> dict[str, Any]:
    """Where a trajectory row came from: its run's registry, where its prompt came from
    (``agents.export.prompts``), and its self-consistency vote as JSON (empty when it had none)."""
    return {"registry_hash": record.registry_hash or "", "prompt_source": conv.source,
            "vote": json.dumps(record.vote, sort_keys=True, ensure_ascii=False) if record.vote else ""}


def sft_row(record: RunRecord, conv: Any, images: list[str], *, source: str) -> dict[str, Any]:
    """One SFT conversation (TRL ``messages`` + ``images``)."""
    return {"id": record.id, "run_id": record.id, "source": source, "messages": conv.messages, "images": images,
            **run_columns(record, conv)}


def expert_sft_row(record: RunRecord, step: Step, call: Any, conv: Any, images: list[str], index: int) -> dict[str, Any]:
    """One expert-level SFT row: the exact prompt an expert was sent and its raw reply as the target."""
    return {"id": f"{record.id}-{step.index}-{index}", "run_id": record.id, "step_index": step.index,
            "model": call.model, "skill": step.skill or "", "messages": conv.messages, "images": images,
            "registry_hash": record.registry_hash or ""}


def kto_row(record: RunRecord, conv: Any, images: list[str], *, label: bool) -> dict[str, Any]:
    """One KTO row: the prompt, one trajectory as the completion, and whether a person found it good."""
    return {"id": f"{record.id}-{'good' if label else 'bad'}", "run_id": record.id, "prompt": conv.prompt,
            "completion": conv.turns, "label": label, "images": images, **run_columns(record, conv)}


def dpo_row(chosen: Any, rejected: Any, chosen_conv: Any, rejected_conv: Any, images: list[str], *,
            kind: str) -> dict[str, Any]:
    """One DPO pair for the same prompt (image, question and system prompt): a good trajectory over a bad one."""
    return {"id": f"{chosen.id}-{rejected.id}", "chosen_run_id": chosen.id, "rejected_run_id": rejected.id,
            "pair_kind": kind, "prompt": chosen_conv.prompt, "chosen": chosen_conv.turns,
            "rejected": rejected_conv.turns, "images": images, "registry_hash": chosen.registry_hash or "",
            "prompt_source": chosen_conv.source}


def grpo_row(index: int, question: str, image: str, truth: str, *, source: dict[str, Any], system: str,
             match_kind: str | None) -> dict[str, Any]:
    """One RL prompt for TRL's GRPOTrainer; extra columns reach the reward function as keyword arguments."""
    return {"id": f"prompt-{index}", "prompt": prompt_messages(system, question), "image": image, "images": [image],
            "ground_truth": truth, "match_kind": match_kind or "", **source}


def verl_row(index: int, question: str, image: str, truth: str, *, source: dict[str, Any], system: str,
             ability: str, match_kind: str | None, names: dict[str, dict[str, list[str]]],
             max_turns: int) -> dict[str, Any]:
    """One RL prompt in verl's parquet layout (``<image>`` marks where the image goes in the prompt text)."""
    extra = {"index": index, "split": "train", "question": question, "image": image, "match_kind": match_kind or "",
             "max_turns": max_turns, "registry_names": json.dumps(names, sort_keys=True), **source}
    return {"data_source": DATA_SOURCE, "agent_name": AGENT_NAME,
            "prompt": [{"role": "system", "content": system},
                       {"role": "user", "content": f"<image>Question: {question}"}],
            "images": [{"image": image}], "ability": ability,
            "reward_model": {"style": "rule", "ground_truth": truth}, "extra_info": extra}


def registry_names(registry: Registry) -> dict[str, dict[str, list[str]]]:
    """Models and skills with their aliases, so the reward can check names without the registry file."""
    return {"models": {e.name: list(e.aliases) for e in registry.experts},
            "skills": {s.spec.name: list(s.spec.aliases) for s in registry.skills}}


#: What a grounding row asks for: the evidence of the answer, as boxes in the image's own pixels.
GROUNDING_ASK = "Mark the evidence for the answer as boxes [x0, y0, x1, y1] in image pixels."


def label_row(record: RunRecord, label: Any, source: str) -> dict[str, Any]:
    """A run's final label (``source``: adjudicated by a reviewer, agreed by its annotators, or one annotator)."""
    return {"run_id": record.id, "source": source, "verdict": label.verdict, "final_answer": label.corrected_answer,
            "labelled_by": label.rater, "reason": label.comment or "",
            "boxes": json.dumps(label.boxes or [], ensure_ascii=False), "question": record.question,
            "answer": record.answer, "status": record.status, "image_id": record.image_id}


def grounding_row(record: RunRecord, label: Any, image: str, source: str) -> dict[str, Any]:
    """One grounding SFT conversation from a box correction: the question and image in, the answer with its
    evidence boxes (original pixels, the image as stored) out. A run labelled incorrect with no corrected answer
    ("no correction known") teaches the boxes only: its own answer is wrong, so it is never the target's answer."""
    answer = label.corrected_answer or ("" if label.verdict == "incorrect" else record.answer or "")
    boxes = [{"label": b.get("label") or "", "box": list(b["box"])} for b in label.boxes]
    target = json.dumps({"answer": answer, "boxes": boxes}, ensure_ascii=False)
    return {"id": f"{record.id}-grounding", "run_id": record.id, "source": source, "images": [image],
            "messages": [{"role": "user", "content": [{"type": "image"},
                                                      {"type": "text", "text": f"{record.question}\n{GROUNDING_ASK}"}],
                          "train": False},
                         {"role": "assistant", "content": [{"type": "text", "text": target}], "train": True}],
            "boxes": json.dumps(boxes, ensure_ascii=False), "answer": answer}

