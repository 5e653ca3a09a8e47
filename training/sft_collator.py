"""A vision SFT collator for ``maestro export`` SFT rows that trains only the policy's own turns (paper eq. 8).

TRL's ``DataCollatorForVisionLanguageModeling`` can mask everything but assistant turns only when the chat template
marks them with ``{% generation %}`` (``assistant_only_loss``), which most VLM templates do not, and it has no notion
of observation turns. This collator reads each message's ``train`` flag instead: labels are -100 everywhere except
the tokens of messages with ``train: true`` (their content and end-of-turn marker, not the role header), so the
system prompt, the question, the image and every ``<information>`` observation are context only.

Token boundaries are found by rendering growing prefixes of the conversation with the processor's own chat template
(a turn starts where the prefix with a generation prompt ends), so it works with any template whose rendering of a
prefix is a prefix of the whole; that is checked, and a template where it is not raises instead of mislabelling.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

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

    def __call__(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        import torch
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
        width = max(len(labels) for labels in all_labels)
        pad = self.processor.tokenizer.pad_token_id
        batch: dict[str, Any] = {
            "input_ids": torch.full((len(rows), width), pad, dtype=torch.long),
            "attention_mask": torch.zeros((len(rows), width), dtype=torch.long),
            "labels": torch.full((len(rows), width), IGNORE_INDEX, dtype=torch.long),
        }
        for i, (full, labels) in enumerate(zip(encoded, all_labels, strict=True)):
            n = len(labels)
            batch["input_ids"][i, :n] = full["input_ids"][0]
            batch["attention_mask"][i, :n] = full["attention_mask"][0]
            batch["labels"][i, :n] = torch.tensor(labels)
        # Vision inputs (pixel_values, image_grid_thw, ...) are concatenated over the batch, as Qwen-VL expects.
        for key in encoded[0]:
            if key not in ("input_ids", "attention_mask"):
                batch[key] = torch.cat([full[key] for full in encoded], dim=0)
        return batch
