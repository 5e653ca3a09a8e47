"""Turning a skill's ``SKILL.md`` template, the tools' evidence and the images into an expert chat."""

from __future__ import annotations

from typing import Any

from PIL import Image

from skills.base import SkillContext

_DEFAULT_TEMPLATE = "Answer the question about the image.\n\nQuestion: {query}\n\nTool evidence:\n{evidence}"


def build_messages(ctx: SkillContext, evidence: str, extra_images: list[Image.Image]) -> list[dict[str, Any]]:
    """A single user turn: the original image, any crops, then the filled-in template."""
    template = ctx.template or _DEFAULT_TEMPLATE
    values = {
        "query": ctx.query,
        "question": ctx.question,
        "evidence": evidence or "(no tool evidence)",
        "level2": ctx.level2.name,
        "level2_description": ctx.level2.description,
    }
    text = _fill(template, values)
    content: list[dict[str, Any]] = [{"type": "image", "image": ctx.image}]
    content += [{"type": "image", "image": crop} for crop in extra_images]
    content.append({"type": "text", "text": text})
    return [{"role": "user", "content": content}]


def _fill(template: str, values: dict[str, str]) -> str:
    """Replace ``{name}`` placeholders without ``str.format`` so braces in evidence or queries stay inert."""
    out = template
    for key, value in values.items():
        out = out.replace("{" + key + "}", value)
    return out
