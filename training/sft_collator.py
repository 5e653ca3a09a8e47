"""A vision SFT collator for ``maestro export`` SFT rows that trains only the policy's own turns (paper eq. 8).

TRL's ``DataCollatorForVisionLanguageModeling`` can mask everything but assistant turns only when the chat template
marks them with ``{% generation %}`` (``assistant_only_loss``), which most VLM templates do not, and it has no notion
of observation turns. This collator reads each message's ``train`` flag instead: labels are -100 everywhere except
the tokens of messages with ``train: true`` (their content and end-of-turn marker, not the role header), so the
system prompt, the question, the image and every ``<information>`` observation are context only. Rows of different
lengths (different questions, images of different sizes) are right-padded: every per-token tensor the processor
returns, whatever its name, and the labels.

Token boundaries are found by rendering growing prefixes of the conversation with the processor's own chat template
(a turn starts where the prefix with a generation prompt ends), so it works with any template whose rendering of a
prefix is a prefix of the whole; that is checked, and a template where it is not raises instead of mislabelling.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

IGNORE_INDEX = -100


def _clean(message: dict[str, Any]) -> dict[str, Any]:
    """A message as chat templates expect it: no ``train`` flag, no null fields in content parts."""
    parts = [{k: v for k, v in part.items() if v is not None} for part in message["content"]]
    return {"role": message["role"], "content": parts}


def _has_image(messages: list[dict[str, Any]]) -> bool:
    return any(part.get("type") == "image" for m in messages for part in m["content"])


class MaskedVisionCollator:
    """Batches SFT rows (``messages`` with ``train`` flags, ``images`` as paths or PIL images) for a VLM."""

    def __init__(self, processor: Any) -> None:
        # No truncation: cutting a sequence inside an image's tokens breaks the model's vision alignment, so long
        # rows are better filtered before training than cut here.
        self.processor = processor

    def _ids(self, messages: list[dict[str, Any]], images: list[Any], *, generation: bool = False) -> list[int]:
        text = self.processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=generation)
        inputs = self.processor(text=[text], images=[images] if images and _has_image(messages) else None,
                                return_tensors="pt")
        return inputs["input_ids"][0].tolist()

    def _labels(self, row: dict[str, Any], images: list[Any]) -> tuple[dict[str, Any], list[int]]:
        messages = [_clean(m) for m in row["messages"]]
        text = self.processor.apply_chat_template(messages, tokenize=False)
        full = self.processor(text=[text], images=[images] if images else None, return_tensors="pt")
        ids = full["input_ids"][0].tolist()
        labels = [IGNORE_INDEX] * len(ids)
        for i, message in enumerate(row["messages"]):
            if not message.get("train"):
                continue
            start = len(self._ids(messages[:i], images, generation=True))
            upto = self._ids(messages[: i + 1], images)
            if ids[: len(upto)] != upto:
                raise ValueError("the chat template does not render a conversation prefix as a prefix of the whole; "
                                 "turn boundaries cannot be found")
            labels[start:len(upto)] = ids[start:len(upto)]
        return full, labels

    def __call__(self, rows: list[dict[str, Any]]) -> dict[str, torch.Tensor]:
        from PIL import Image

        encoded, all_labels = [], []
        for row in rows:
            images = []
            for image in row.get("images") or []:
                if isinstance(image, str | Path):
                    with Image.open(image) as opened:
                        image = opened.convert("RGB")
                images.append(image)
            full, labels = self._labels(row, images)
            encoded.append(full)
            all_labels.append(labels)
        return collate(encoded, all_labels, pad_token_id=self.processor.tokenizer.pad_token_id)


def _is_per_token(value: torch.Tensor, length: int) -> bool:
    """A tensor with one entry per token of a one-row encoding: shape (..., 1, length)."""
    return value.dim() >= 2 and value.shape[-2] == 1 and value.shape[-1] == length


def collate(encoded: Sequence[Mapping[str, torch.Tensor]], all_labels: Sequence[list[int]], *,
            pad_token_id: int | None) -> dict[str, torch.Tensor]:
    """One batch from one-row processor outputs: every per-token tensor right-padded to the longest row and
    stacked on its batch axis, every other tensor (pixel_values, image_grid_thw, ...) concatenated over rows.

    Per-token tensors are found by shape, not by name, so whatever a processor returns per token (input_ids,
    attention_mask, mm_token_type_ids, token_type_ids, position_ids of shape (3, 1, n), ...) is padded; padding
    is the pad token for input_ids, -100 for labels and 0 elsewhere (attention 0, token type "text").
    """
    import torch

    lengths = [len(labels) for labels in all_labels]
    width = max(lengths)
    keys = list(dict.fromkeys(key for full in encoded for key in full))
    per_token = [key for key in keys
                 if all(_is_per_token(full[key], n) for full, n in zip(encoded, lengths, strict=True) if key in full)]
    fill = {"input_ids": 0 if pad_token_id is None else pad_token_id}
    batch: dict[str, torch.Tensor] = {}
    for key in per_token:
        rows = []
        for full, n in zip(encoded, lengths, strict=True):
            if key not in full:
                raise ValueError(f"the processor returned {key!r} for some rows of the batch and not for others")
            value = full[key]
            rows.append(torch.nn.functional.pad(value, (0, width - n), value=fill.get(key, 0)))
        batch[key] = torch.cat(rows, dim=-2)
    batch["labels"] = torch.tensor([labels + [IGNORE_INDEX] * (width - len(labels)) for labels in all_labels],
                                   dtype=torch.long)
    # Vision inputs (pixel_values, image_grid_thw, ...) are concatenated over the batch, as Qwen-VL expects;
    # rows without an image add nothing to them.
    for key in keys:
        if key not in per_token:
            batch[key] = torch.cat([full[key] for full in encoded if key in full], dim=0)
    return batch
