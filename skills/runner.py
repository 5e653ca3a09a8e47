"""Running a Level-1 skill: pick its Level-2 sub-skill by keywords, run its tools, then ask the expert or settle.

The Level-2 choice and the keywords that fired are returned so the step records *why*. A skill folder with a
``skill.py`` supplies ``run(ctx)``; one without gets the generic behaviour: the expert is prompted with the
``SKILL.md`` template and the image, and the tools back end says plainly that it cannot settle the question.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from PIL import Image

from skills.base import PairedExpert, SkillContext, SkillResult, ToolTrace
from skills.chat import chat_spelled, without_opener
from skills.question_text import asks_to_calculate, asks_two_things, task_text
from skills.spec import Level2Spec, LoadedSkill
from storage.trace import ModelCall, ToolCall
from vision_tools.image import Box
from vision_tools.image.drawing import draw_boxes


@dataclass
class Level2Choice:
    level2: Level2Spec
    reason: str


def choose_level2(spec_level2: list[Level2Spec], text: str) -> Level2Choice:
    """The Level-2 sub-skill whose keywords match ``text`` best (ties: declaration order); the first by default.

    Answer-format instructions in ``text`` are not matched (``task_text``): "the option's letter" is no request
    to read a letter."""
    stem, options = task_text(text)
    lowered = f"{stem}\n{options}".lower()
    best: tuple[int, int, Level2Spec, list[str]] | None = None
    for order, sub in enumerate(spec_level2):
        fired = [kw for kw in sub.keywords if _keyword_in(kw.lower(), lowered)]
        score = sum(len(kw) for kw in fired)
        if fired and (best is None or score > best[0]):
            best = (score, order, sub, fired)
    if best is None:
        return Level2Choice(spec_level2[0], "no Level-2 keyword matched; default sub-skill")
    return Level2Choice(best[2], "keywords: " + ", ".join(repr(k) for k in best[3]))


def _keyword_in(keyword: str, text: str) -> bool:
    return re.search(r"(?<![a-z0-9])" + re.escape(keyword) + r"(?![a-z0-9])", text) is not None


def run_skill(skill: LoadedSkill, *, query: str, question: str, image: Image.Image, expert: PairedExpert,
              trace: ToolTrace, level2: Level2Choice | None = None) -> tuple[SkillResult, Level2Choice]:
    """Run ``skill`` for one ``<search>`` call, recording tool calls into ``trace`` (kept even if it raises)."""
    # Every skill reads "hey is glass more than …" as "is glass more than …", "wich" as "which", and "triangels"
    # as "triangles".
    question = chat_spelled(without_opener(question))
    choice = level2 or choose_level2(skill.spec.level2, f"{question}\n{query}")
    ctx = SkillContext(query=query, question=question, image=image, expert=expert, spec=skill.spec,
                       level2=choice.level2, trace=trace, template=skill.spec.template)
    result = skill.module.run(ctx) if skill.module is not None else generic_run(ctx)
    if result.answer is not None and not getattr(expert, "neural", False):
        # "How many triangles are there and what colour are they?": a tool settles one part; "2" alone at P 0.99
        # would answer a question nobody asked. "If two people split the total evenly…": the total is no answer.
        two, calculation = asks_two_things(question), asks_to_calculate(question)
        if two is not None:
            result.missing = f"the question asks two things ({two}), and the tools settle one at a time"
        elif calculation is not None:
            result.missing = (f"the question asks for a calculation from what it states ({calculation}); the tools "
                              "read the printed values but do not calculate from a premise")
        if two is not None or calculation is not None:
            result.observation += f"\nNo answer: {result.missing}."
            result.answer, result.confidence = None, None
    return result, choice


def generic_run(ctx: SkillContext) -> SkillResult:
    """A skill without code: prompt a neural expert with the template; the tools back end declines honestly."""
    if not getattr(ctx.expert, "neural", False):
        return SkillResult(observation=f"The {ctx.spec.name} skill has no tools that can settle this question "
                                       "without a neural expert.")
    return ask_expert(ctx, evidence="")


def ask_expert(ctx: SkillContext, evidence: str, extra_images: list[Image.Image] | None = None) -> SkillResult:
    """Prompt the neural expert with the skill's template, the tools' evidence and the image(s); the exact
    messages and the raw reply (or the error) are recorded on ``ctx.trace.model_calls``."""
    from skills.prompting import build_messages  # local import keeps the module light for tools-only runs

    messages = build_messages(ctx, evidence, extra_images or [])
    started = time.perf_counter()
    call = ModelCall(role="expert", model=str(getattr(ctx.expert, "name", "")), messages=messages, raw_reply="")
    ctx.trace.model_calls.append(call)
    params = getattr(ctx.expert, "request_params", None)
    call.params = params() if callable(params) else {}
    try:
        reply = ctx.expert.generate(messages)
    except Exception as exc:
        call.error, call.latency_ms = f"{type(exc).__name__}: {exc}", (time.perf_counter() - started) * 1000
        raise
    # The server's time when the back end measured it: image encoding and box conversion are not the model's.
    elapsed = getattr(reply, "latency_ms", 0.0) or (time.perf_counter() - started) * 1000
    call.raw_reply = getattr(reply, "raw_text", reply.text)  # exactly as returned, a <think> block included
    call.tokens_in, call.tokens_out, call.latency_ms = reply.tokens_in, reply.tokens_out, elapsed
    call.reasoning = getattr(reply, "reasoning", None)
    text = reply.text.strip() or "(the expert returned no text)"
    boxes = list(getattr(reply, "boxes", None) or [])
    if boxes:
        call.boxes = [{"box": [round(v, 1) for v in b.box.as_list()], "label": b.label} for b in boxes]
        record_expert_boxes(ctx, call)
        text = expert_text_in_pixels(reply, ctx.image.size)
    return SkillResult(observation=text, evidence={"tools": evidence}, expert_ms=elapsed,
                       tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, extra_images=extra_images or [])


def expert_text_in_pixels(reply: Any, size: tuple[int, int]) -> str:
    """The reply as the orchestrator sees it: every box in one declared frame, original-image pixels, which is the
    frame a following zoom or crop call takes (``[x0, y0, x1, y1]`` in the query)."""
    frame = f"Boxes are [x0, y0, x1, y1] in pixels of the original {size[0]}x{size[1]} image."
    rewritten = getattr(reply, "pixel_text", None)
    if rewritten:
        return f"{rewritten.strip()}\n{frame}"
    # The literals could not be paired with the converted boxes: show the converted boxes only, never two frames.
    listed = "; ".join(f"{b.label or 'box'} {[round(v) for v in b.box.as_list()]}" for b in reply.boxes)
    return f"The expert gave {len(reply.boxes)} box(es): {listed}.\n{frame}"


def record_expert_boxes(ctx: SkillContext, call: ModelCall) -> None:
    """The expert's boxes as evidence of the step: a recorded call with the boxes (original pixels) drawn on the
    question's image, which the evidence viewer lists and shows like any tool's boxes."""
    started = time.perf_counter()
    drawn = draw_boxes(ctx.image, [(Box(*b["box"]), str(b["label"] or "")) for b in call.boxes])
    listed = "; ".join(f"{b['label'] or 'box'} {[round(v) for v in b['box']]}" for b in call.boxes[:6])
    ctx.trace.calls.append(ToolCall(
        len(ctx.trace.calls), "expert.boxes", {"expert": call.model}, f"{len(call.boxes)} box(es) from "
        f"{call.model} in original pixels: {listed}", (time.perf_counter() - started) * 1000,
        data={"frame": "pixels", "image_size": list(ctx.image.size), "boxes": call.boxes}, image=drawn))
