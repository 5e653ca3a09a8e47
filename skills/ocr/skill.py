"""OCR skill: read the text with the OCR tool, then transcribe (tools expert) or let a neural expert answer.

With the tools expert the answer is settled only where reading settles it: a transcription question gets the text
in reading order; a field question ("what is the total?") gets the value printed next to that label. Anything else
is returned as evidence with a plain statement that the tools cannot answer it alone.
"""

from __future__ import annotations

import re

from skills.answer_form import format_answer
from skills.base import SkillContext, SkillResult
from skills.common import COLOUR_WORDS, conclude
from skills.runner import ask_expert
from vision_tools.text import read_text
from vision_tools.zoom import find_region

_OBJECT_RE = re.compile(r"\b(" + "|".join(COLOUR_WORDS) + r")\s+(?:label|sign|sticker|banner|tag|card|note|board|"
                        r"plate|box|button|poster)\b", re.IGNORECASE)
_FIELD_RE = re.compile(r"(?:what is|what's|find|give)\s+(?:the\s+)?([a-z][a-z ]{1,30}?)(?:\s+on|\s+in|\s+of|\?|$)",
                       re.IGNORECASE)


def run(ctx: SkillContext) -> SkillResult:
    # An expert entry may pick the OCR engine (registry ``options: {ocr_backend: tesseract}``): two tools experts
    # that differ for real, which the learned router can tell apart.
    backend = (getattr(ctx.expert, "options", None) or {}).get("ocr_backend", "rapidocr")
    located = _locate_named_object(ctx)
    if located is not None:
        search, box = located
        result = ctx.trace.call("ocr.read_text", read_text, ctx.image, region=box, backend=backend)
        text = result.text.replace("\n", " ").strip()
        return conclude(ctx, [search, result], text or None,
                        note=f"Text read inside the {search.target} region only." if text else
                        f"No text inside the {search.target} region.")
    result = ctx.trace.call("ocr.read_text", read_text, ctx.image, backend=backend)
    lines = result.lines
    evidence = "\n".join(
        f"{i + 1}. {line.text!r} box={line.box.as_list()} conf={line.confidence:.2f}" for i, line in enumerate(lines)
    ) or "(no text found)"
    if getattr(ctx.expert, "neural", False):
        return ask_expert(ctx, evidence)
    data = {"lines": [line.text for line in lines]}
    if not lines:
        return SkillResult(observation="OCR found no text in the image.", evidence=data)
    level2 = ctx.level2.id
    if level2 == "key_information_extraction":
        value = _field_value(ctx.question, lines)
        if value is not None:
            return SkillResult(observation=f"OCR lines:\n{evidence}\nField value: {value}",
                               answer=format_answer(ctx.question, value), evidence=data)
        return SkillResult(observation=f"OCR lines:\n{evidence}\nThe field asked for was not found next to a label.",
                           evidence=data)
    if level2 in ("text_recognition", "scene_text_qa", "formula_recognition"):
        text = " ".join(line.text for line in lines)
        return SkillResult(observation=f"OCR lines:\n{evidence}\nTranscription: {text}",
                           answer=format_answer(ctx.question, text), evidence=data)
    return SkillResult(observation=f"OCR lines:\n{evidence}\nThe tools read the text but cannot answer this "
                                   "question without a reasoning expert.", evidence=data)


def _locate_named_object(ctx: SkillContext):
    """For "the text on the <colour> <label|sign|...>": the object's region, found by a tiled colour search."""
    match = _OBJECT_RE.search(ctx.question)
    if not match:
        return None
    search = ctx.trace.call("zoom.find_region", find_region, ctx.image, match.group(1).lower(), kind="colour")
    return (search, search.matches[0].box) if search.matches else None


def _field_value(question: str, lines: list) -> str | None:
    """The text printed after (or right of) the label the question names."""
    match = _FIELD_RE.search(question)
    if not match:
        return None
    label = match.group(1).strip().lower()
    for i, line in enumerate(lines):
        lowered = line.text.lower()
        if label in lowered:
            rest = line.text[lowered.index(label) + len(label):].strip(" :=-\t")
            if rest:
                return rest
            if i + 1 < len(lines):
                return lines[i + 1].text.strip()
    return None
