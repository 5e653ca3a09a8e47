"""Grounding SFT rows: an expert's boxes, from runs a person rated correct, as training data for box output.

Each row is one expert call that gave boxes: the exact prompt it was sent (its images by path, the question's
image first) and, as the target, the boxes as Qwen3-VL writes them (``[{"bbox_2d": [x0, y0, x1, y1], "label"}]``
in 0-1000 units of the first image), which no processor's resize changes. The boxes in original pixels and the
image size ride along (``boxes``, ``image_size``), so a trainer for a model with another frame (Qwen2.5-VL's
resized pixels) converts them with its own processor. A person confirmed the run's answer, not each box: rows say
so in ``checked`` ("answer").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from agents.export.prompts import training_message

#: The frame of the target text.
TARGET_FRAME = "relative_1000"


def in_thousandths(box: list[float], size: tuple[int, int]) -> list[int]:
    """A box in pixels of an image of ``size`` (w, h) as 0-1000 units, rounded and clamped."""
    width, height = size
    scaled = [box[0] / width, box[1] / height, box[2] / width, box[3] / height]
    return [min(1000, max(0, round(v * 1000))) for v in scaled]


def grounding_rows(records: Iterable[Any], image_path: Callable[[str], str]) -> list[dict[str, Any]]:
    """One row per expert call with boxes in ``records`` (runs rated correct); ``image_path`` copies an image id
    into the export and returns its relative path."""
    rows: list[dict[str, Any]] = []
    for record in records:
        for step in record.steps:
            drawn = {c.args.get("expert"): c.data for c in step.tool_calls if c.tool == "expert.boxes"}
            for index, call in enumerate(step.model_calls):
                size = (drawn.get(call.model) or {}).get("image_size")
                if call.role != "expert" or not call.boxes or not call.messages or not size:
                    continue
                image_ids: list[str] = []
                messages = [training_message(m, False, image_ids) for m in call.messages]
                target = [{"bbox_2d": in_thousandths(b["box"], (int(size[0]), int(size[1]))),
                           **({"label": b["label"]} if b.get("label") else {})} for b in call.boxes]
                reply = {"role": "assistant", "train": True,
                         "content": [{"type": "text", "text": "```json\n" + json.dumps(target) + "\n```"}]}
                rows.append({"id": f"{record.id}-{step.index}-{index}", "run_id": record.id,
                             "step_index": step.index, "model": call.model, "skill": step.skill or "",
                             "query": step.query or "", "messages": [*messages, reply],
                             "images": [image_path(i) for i in image_ids], "image_size": list(size),
                             "boxes": call.boxes, "target_frame": TARGET_FRAME, "checked": "answer",
                             "registry_hash": record.registry_hash or ""})
    return rows
