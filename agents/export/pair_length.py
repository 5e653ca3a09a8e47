"""Preference pairs that truncation would make identical: found with the trainer's own processor, reported, dropped.

TRL's ``DPOTrainer`` cuts every prompt+completion sequence to ``max_length`` tokens (default 1024, keeping the
start). Maestro's pairs share a long prefix: the system prompt (thousands of tokens), the image's tokens, and often
every turn but the last (a corrected run pairs with itself). Cut within that shared prefix, chosen and rejected are
the same tokens, the loss stays at ln 2 and nothing is learned, silently. ``check_pairs`` renders each pair the way
the trainer does (the processor's chat template over prompt + completion, with the images, so image tokens count)
and drops the pairs whose first ``max_length`` tokens are identical, reporting how many and the longest pair, so the
trainer's ``max_length`` can be set to keep everything (docs/training.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class PairLengths:
    """What the check found: the settings, the longest sequence, and which pairs were dropped."""

    processor: str
    max_length: int | None
    longest: int = 0  # tokens of the longest prompt+completion among the pairs checked
    dropped: list[str] = field(default_factory=list)  # ids of pairs identical within max_length

    def to_dict(self) -> dict[str, Any]:
        return {"processor": self.processor, "max_length": self.max_length, "longest_tokens": self.longest,
                "dropped": len(self.dropped), "dropped_ids": self.dropped}


def load_processor(name_or_path: str) -> Any:
    """The processor of a local model folder, or of a hub id (from the local cache; fetched only when online)."""
    import transformers

    from agents.experts.transformers_backend import _load_processor, resolve_weights

    return _load_processor(resolve_weights(name_or_path), transformers)


def _clean(message: dict[str, Any]) -> dict[str, Any]:
    """A message as chat templates expect it: no ``train`` flag, no null fields in content parts."""
    return {"role": message["role"], "content": [{k: v for k, v in part.items() if v is not None}
                                                  for part in message["content"]]}


def sequence_ids(processor: Any, prompt: Sequence[dict[str, Any]], completion: Sequence[dict[str, Any]],
                 images: list[Any]) -> list[int]:
    """The token ids of prompt + completion as the trainer builds them (chat template, image tokens expanded)."""
    messages = [_clean(m) for m in [*prompt, *completion]]
    text = processor.apply_chat_template(messages, tokenize=False)
    has_image = any(part.get("type") == "image" for m in messages for part in m["content"])
    inputs = processor(text=[text], images=[images] if images and has_image else None)
    return list(inputs["input_ids"][0])


def check_pairs(rows: list[dict[str, Any]], processor: Any, max_length: int | None, *, image_root: Path,
                processor_name: str = "") -> tuple[list[dict[str, Any]], PairLengths]:
    """(rows kept, report): a pair is dropped when its chosen and rejected sequences agree on their first
    ``max_length`` tokens (TRL's default ``truncation_mode="keep_start"``); None only measures the pairs."""
    from PIL import Image

    if max_length is not None and max_length < 1:
        raise ValueError(f"--max-length must be a positive number of tokens, got {max_length}")
    report = PairLengths(processor=processor_name, max_length=max_length)
    kept: list[dict[str, Any]] = []
    for row in rows:
        images = [Image.open(image_root / path).convert("RGB") for path in row.get("images") or []]
        chosen = sequence_ids(processor, row["prompt"], row["chosen"], images)
        rejected = sequence_ids(processor, row["prompt"], row["rejected"], images)
        report.longest = max(report.longest, len(chosen), len(rejected))
        if max_length is not None and chosen[:max_length] == rejected[:max_length]:
            report.dropped.append(str(row["id"]))
        else:
            kept.append(row)
    return kept, report
