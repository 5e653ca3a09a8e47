"""Keeping a thinking model's reasoning apart from its reply.

A server started with a reasoning parser (vLLM ``--reasoning-parser``) returns the reasoning in its own field
(``reasoning_content``, renamed ``reasoning`` in newer vLLM); one started without it returns everything as the reply,
the reasoning first inside ``<think>…</think>``. A Qwen3-VL Thinking model opens ``<think>`` in its chat template's
generation prompt, so its reply starts inside the block and only the closing tag appears. All three forms end up
as (reasoning, reply) here, so nothing downstream parses reasoning for boxes or answers.
"""

from __future__ import annotations

import re
from typing import Any

_LEADING_THINK = re.compile(r"^\s*<\s*think\s*>(?P<reasoning>.*?)<\s*/\s*think\s*>", re.S | re.I)
_CLOSE = re.compile(r"<\s*/\s*think\s*>", re.I)
_OPEN = re.compile(r"<\s*think\s*>", re.I)
#: Field names OpenAI-compatible servers use for the reasoning, newest first.
REASONING_FIELDS = ("reasoning_content", "reasoning")


def reasoning_field(message: dict[str, Any]) -> str | None:
    """The reasoning a server returned beside the reply (vLLM/SGLang with a reasoning parser), if any."""
    for key in REASONING_FIELDS:
        value = message.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def split_reasoning(text: str, reasoning: str | None = None) -> tuple[str, str | None]:
    """(reply, reasoning): a leading ``<think>…</think>`` block, or everything before a lone closing ``</think>``,
    moved out of ``text`` and joined to any ``reasoning`` the server gave separately."""
    found: str | None = None
    match = _LEADING_THINK.match(text)
    if match:
        found, text = match.group("reasoning"), text[match.end():]
    else:
        close = _CLOSE.search(text)
        if close and not _OPEN.search(text, 0, close.start()):
            found, text = text[: close.start()], text[close.end():]
    parts = [p.strip() for p in (reasoning, found) if p and p.strip()]
    # Without a think block the reply is left exactly as written.
    return (text.strip() if found is not None else text), "\n\n".join(parts) or None
