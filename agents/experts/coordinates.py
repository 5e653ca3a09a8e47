"""Boxes in expert text, and the per-model-family frame they are written in, converted to original-image pixels.

Experts answer with boxes in whatever frame their training used: Qwen2.5-VL in pixels of the image *it* saw (after
its processor's resize to multiples of 28 within min/max pixels), Qwen2-VL and Qwen3-VL in 0-1000 relative units,
other models in the frame their registry entry declares. This module finds the boxes in free text (JSON with
``bbox_2d``, bare ``[x0, y0, x1, y1]`` lists, ``<box>(x,y),(x,y)</box>`` and Qwen2-VL's ``<|box_start|>`` form) and
converts them once, at the expert boundary, with ``vision_tools.image.boxes.to_pixels``.

The resize rule is the one in transformers' Qwen2-VL image processor (``smart_resize``), which is what a served
Qwen2.5-VL runs on the image it receives. ``qwen-vl-utils`` carries a copy of the rule but imports torchvision at
module level in every release (0.0.1 to 0.0.14), and torchvision cannot be installed beside CPU torch (docs/design.md §8).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

from agents.experts.base import ExpertBox
from vision_tools.image import Box, BoxFrame, to_pixels

#: Qwen2.5-VL's image-processor defaults (preprocessor_config.json of the released checkpoints).
QWEN25_FACTOR = 28
QWEN25_MIN_PIXELS = 56 * 56
QWEN25_MAX_PIXELS = 28 * 28 * 16384


#: Qwen3-VL's processor: 16-pixel patches merged 2x2, shortest_edge 65,536 and longest_edge 16,777,216 pixels.
QWEN3_MIN_PIXELS = 65_536
QWEN3_MAX_PIXELS = 16_777_216
#: GLM-4.xV's processor: 14-pixel patches merged 2x2; 112x112 pixels at least.
GLM4V_MIN_PIXELS = 12_544


class ModelFamily(StrEnum):
    """Model families whose box frame is fixed by how they were trained."""

    QWEN2_VL = "qwen2-vl"
    QWEN25_VL = "qwen2.5-vl"
    QWEN3_VL = "qwen3-vl"
    GLM4V = "glm-4v"
    GENERIC = "generic"


_FAMILY_FRAMES = {
    ModelFamily.QWEN2_VL: BoxFrame.RELATIVE_1000,
    ModelFamily.QWEN25_VL: BoxFrame.RESIZED_PIXELS,
    ModelFamily.QWEN3_VL: BoxFrame.RELATIVE_1000,
    # GLM-4.5V / 4.6V write <|begin_of_box|>[x0,y0,x1,y1]<|end_of_box|> in 0-1000 units.
    ModelFamily.GLM4V: BoxFrame.RELATIVE_1000,
}

#: The smallest image area each known family's processor resizes to (its ``min_pixels`` default).
FAMILY_MIN_PIXELS = {
    ModelFamily.QWEN2_VL: QWEN25_MIN_PIXELS,
    ModelFamily.QWEN25_VL: QWEN25_MIN_PIXELS,
    ModelFamily.QWEN3_VL: QWEN3_MIN_PIXELS,
    ModelFamily.GLM4V: GLM4V_MIN_PIXELS,
}

# Order matters: "qwen2.5-vl" also contains "qwen2", so the more specific patterns are tried first.
_FAMILY_PATTERNS = [
    (re.compile(r"qwen[-_ ]?2[._]5[-_ ]?vl", re.I), ModelFamily.QWEN25_VL),
    (re.compile(r"qwen[-_ ]?3[._\d]*[-_ ]?vl", re.I), ModelFamily.QWEN3_VL),
    (re.compile(r"qwen[-_ ]?2[-_ ]?vl", re.I), ModelFamily.QWEN2_VL),
    (re.compile(r"glm[-_ ]?4(?:\.\d+)?v", re.I), ModelFamily.GLM4V),
]


def model_family(model: str | None) -> ModelFamily:
    """The family of a model id or path such as ``Qwen/Qwen2.5-VL-7B-Instruct``; ``GENERIC`` when unknown."""
    for pattern, family in _FAMILY_PATTERNS:
        if model and pattern.search(model):
            return family
    return ModelFamily.GENERIC


def frame_for(model: str | None, declared: BoxFrame | str = BoxFrame.PIXELS) -> BoxFrame:
    """The frame a model answers in: fixed for known families, else the frame its registry entry declares."""
    return _FAMILY_FRAMES.get(model_family(model), BoxFrame(declared))


@dataclass(frozen=True)
class ParsedBox:
    """A box as the expert wrote it, in the expert's own frame, with its label when it gave one."""

    coords: tuple[float, float, float, float]
    label: str | None = None


_NUM = r"-?\d+(?:\.\d+)?"
_POINT_PAIR = rf"\(\s*({_NUM})\s*,\s*({_NUM})\s*\)\s*,?\s*\(\s*({_NUM})\s*,\s*({_NUM})\s*\)"
_TAGGED = re.compile(
    rf"(?:<\|object_ref_start\|>(?P<ref>.*?)<\|object_ref_end\|>\s*)?"
    rf"(?:<box>|<\|box_start\|>)\s*{_POINT_PAIR}\s*(?:</box>|<\|box_end\|>)", re.S)
_BARE = re.compile(rf"\[\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*\]")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
_BOX_KEYS = ("bbox_2d", "bbox", "box", "box_2d")
_LABEL_KEYS = ("label", "name", "object", "category")


def _as_coords(value: Any) -> tuple[float, float, float, float] | None:
    if isinstance(value, list | tuple) and len(value) == 4 and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        return (float(value[0]), float(value[1]), float(value[2]), float(value[3]))
    return None


def _four(groups: Sequence[str]) -> tuple[float, float, float, float]:
    """The four numbers a box pattern captured (its groups always match)."""
    x0, y0, x1, y1 = groups
    return (float(x0), float(y0), float(x1), float(y1))


#: Boxes are found at most this deep in a reply's JSON; deeper nesting (a hostile reply) is not walked.
_MAX_DEPTH = 32


def _walk_json(node: Any, out: list[ParsedBox], depth: int = 0) -> None:
    if depth > _MAX_DEPTH:
        return
    if isinstance(node, dict):
        for key in _BOX_KEYS:
            coords = _as_coords(node.get(key))
            if coords is not None:
                label = next((str(node[k]) for k in _LABEL_KEYS if isinstance(node.get(k), str)), None)
                out.append(ParsedBox(coords, label))
                return
        for value in node.values():
            _walk_json(value, out, depth + 1)
    elif isinstance(node, list):
        coords = _as_coords(node)
        if coords is not None:
            out.append(ParsedBox(coords))
            return
        for value in node:
            _walk_json(value, out, depth + 1)


def _json_candidates(text: str) -> list[Any]:
    """Every JSON value found in fenced blocks, or else the whole text, or else the outermost brackets."""
    blocks = _FENCE.findall(text) or [text]
    found: list[Any] = []
    for block in blocks:
        block = block.strip()
        try:
            found.append(json.loads(block))
            continue
        except (ValueError, RecursionError):  # an expert's reply is untrusted: any depth of brackets
            pass
        # Prose around the JSON: try the span from the first opening bracket to the last matching closer, the
        # outermost kind first (an object holding a box list, or a list of objects, keeps its labels).
        spans = sorted((block.find(opener), closer) for opener, closer in (("[", "]"), ("{", "}"))
                       if opener in block)
        for start, closer in spans:
            end = block.rfind(closer)
            if start < end:
                try:
                    found.append(json.loads(block[start:end + 1]))
                    break
                except (ValueError, RecursionError):
                    continue
    return found


def parse_boxes(text: str) -> list[ParsedBox]:
    """All boxes in ``text``, in the order written, in the expert's own frame (nothing is converted here)."""
    tagged = [ParsedBox(_four(m.group(2, 3, 4, 5)), (m.group("ref") or "").strip() or None)
              for m in _TAGGED.finditer(text)]
    if tagged:
        return tagged
    boxes: list[ParsedBox] = []
    for value in _json_candidates(text):
        _walk_json(value, boxes)
    if boxes:
        return boxes
    return [ParsedBox(_four(m.groups())) for m in _BARE.finditer(text)]


@lru_cache(maxsize=1)
def load_resize_rule() -> Callable[..., tuple[int, int]]:
    """transformers' Qwen2-VL ``smart_resize(height, width, factor, min_pixels, max_pixels) -> (h, w)``.

    Importing it imports transformers (seconds): a back end whose boxes need it calls this once when it is built,
    so the first call is not slowed down and no expert's latency pays for the import."""
    try:  # newer transformers: the torchvision-free image processor has its own module
        from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import smart_resize
    except ImportError:  # transformers 4.57 to early 5.x: this module is the torchvision-free one
        from transformers.models.qwen2_vl.image_processing_qwen2_vl import smart_resize
    return smart_resize


def resized_input_size(sent_size: tuple[int, int], *, factor: int = QWEN25_FACTOR,
                       min_pixels: int = QWEN25_MIN_PIXELS, max_pixels: int = QWEN25_MAX_PIXELS) -> tuple[int, int]:
    """The input size (w, h) a Qwen2/2.5-VL processor resizes an image sent at ``sent_size`` (w, h) to."""
    width, height = sent_size
    if width <= 0 or height <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    resized_height, resized_width = load_resize_rule()(height, width, factor=factor, min_pixels=min_pixels,
                                                        max_pixels=max_pixels)
    return int(resized_width), int(resized_height)


def convert_box(coords: tuple[float, float, float, float] | list[float], *, image_size: tuple[int, int],
                frame: BoxFrame | str, input_size: tuple[int, int] | None = None,
                sent_size: tuple[int, int] | None = None, min_pixels: int = QWEN25_MIN_PIXELS,
                max_pixels: int = QWEN25_MAX_PIXELS, factor: int = QWEN25_FACTOR) -> Box:
    """One box from ``frame`` into pixels of the original ``image_size`` (w, h).

    For ``RESIZED_PIXELS``, ``input_size`` is the model's resized input when the back end reported it (the
    transformers back end does); otherwise it is computed with ``resized_input_size`` from ``sent_size``, the size the
    image was sent at (the OpenAI back end may downscale first; defaults to ``image_size``).
    """
    frame = BoxFrame(frame)
    if frame is BoxFrame.RESIZED_PIXELS and input_size is None:
        input_size = resized_input_size(sent_size or image_size, factor=factor, min_pixels=min_pixels,
                                        max_pixels=max_pixels)
    return to_pixels(coords, frame, image_size, input_size)


def boxes_in_pixels(text: str, *, image_size: tuple[int, int], model: str | None = None,
                    declared_frame: BoxFrame | str = BoxFrame.PIXELS, input_size: tuple[int, int] | None = None,
                    sent_size: tuple[int, int] | None = None, min_pixels: int = QWEN25_MIN_PIXELS,
                    max_pixels: int = QWEN25_MAX_PIXELS) -> list[tuple[Box, str | None]]:
    """Every box in an expert's ``text`` as (original-pixel ``Box``, label), using the frame of ``model``'s family."""
    frame = frame_for(model, declared_frame)
    return [(convert_box(p.coords, image_size=image_size, frame=frame, input_size=input_size, sent_size=sent_size,
                         min_pixels=min_pixels, max_pixels=max_pixels), p.label)
            for p in parse_boxes(text)]


def expert_boxes(text: str, *, image_size: tuple[int, int] | None, model: str | None,
                 declared_frame: BoxFrame | str = BoxFrame.PIXELS, input_size: tuple[int, int] | None = None,
                 sent_size: tuple[int, int] | None = None, min_pixels: int | None = None,
                 max_pixels: int | None = None) -> list[ExpertBox]:
    """The boxes of an expert's reply in original pixels of the image (``image_size``) they refer to.

    Empty when the chat had no image or the text has no box. When the model's input size cannot be known (an image
    its processor would refuse, such as an aspect ratio beyond 200:1) nothing is converted rather than guessed; the
    boxes stay in the text as written. ``min_pixels``/``max_pixels`` are the server's processor limits as the
    registry declares them (the family's defaults when not given).
    """
    parsed = parse_boxes(text) if image_size is not None else []
    if not parsed or image_size is None:
        return []
    frame = frame_for(model, declared_frame)
    if frame is BoxFrame.RESIZED_PIXELS and input_size is None:
        try:
            input_size = resized_input_size(sent_size or image_size, min_pixels=min_pixels or QWEN25_MIN_PIXELS,
                                            max_pixels=max_pixels or QWEN25_MAX_PIXELS)
        except ValueError:
            return []
    return [ExpertBox(to_pixels(p.coords, frame, image_size, input_size), p.label) for p in parsed]


def needs_resize_rule(model: str | None, declared: BoxFrame | str = BoxFrame.PIXELS) -> bool:
    """Whether converting this model's boxes needs the processor's resize rule (its frame is resized pixels)."""
    return frame_for(model, declared) is BoxFrame.RESIZED_PIXELS


def _box_literals(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every box literal in ``text`` in the order ``parse_boxes`` reads them."""
    tagged = list(_TAGGED.finditer(text))
    if tagged:
        return [(m.start(2), m.end(5), "points") for m in tagged]
    return [(m.start(), m.end(), "list") for m in _BARE.finditer(text)]


def rewrite_in_pixels(text: str, boxes: list[ExpertBox]) -> str | None:
    """``text`` with each box literal replaced by its box in original pixels (``boxes``, in reading order), so the
    orchestrator sees one frame only; None when the literals and the boxes do not pair up one to one."""
    spans = _box_literals(text)
    if not boxes or len(spans) != len(boxes):
        return None
    out, last = [], 0
    for (start, end, kind), found in zip(spans, boxes, strict=True):
        x0, y0, x1, y1 = (round(v) for v in found.box.as_list())
        out.append(text[last:start])
        out.append(f"({x0},{y0}),({x1},{y1})" if kind == "points" else f"[{x0}, {y0}, {x1}, {y1}]")
        last = end
    out.append(text[last:])
    return "".join(out)
