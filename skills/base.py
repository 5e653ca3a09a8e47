"""What a skill receives, what it returns, and the trace that records every tool call inside it.

A skill is called with a ``SkillContext`` (the orchestrator's query, the user's question, the image, the chosen
expert) and returns a ``SkillResult``: the observation text that goes back into ``<information>``, the answer its
tools settled (if they did), the Level-2 sub-skill chosen and why, and the recorded tool calls.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from PIL import Image

from storage.records import ModelCall, ToolCall

T = TypeVar("T")


class ToolTrace:
    """Runs tools and records each call (name, arguments, one-line summary, annotated image, time, error), and
    collects the model calls the skill makes (``skills.runner.ask_expert`` appends them).

    Each call gets a ``cache_key``: a digest of the tool's name, its plain arguments and the pixels of its image
    arguments, so a later rerun can recognise the same call (``agents`` decides whether to reuse it)."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []
        self.model_calls: list[ModelCall] = []  # every expert call inside the skill: exact prompt and raw reply
        self._digests: dict[int, tuple[Image.Image, str]] = {}

    @property
    def total_ms(self) -> float:
        return sum(call.latency_ms for call in self.calls)

    def call(self, tool: str, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Run ``fn(*args, **kwargs)`` as tool ``tool``; the result's ``summary()`` and ``annotated`` are kept."""
        started = time.perf_counter()
        plain = _plain_args(args, kwargs)
        key = self.cache_key(tool, plain, [*args, *kwargs.values()])
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            self.calls.append(ToolCall(len(self.calls), tool, plain, f"failed: {exc}",
                                       (time.perf_counter() - started) * 1000, error=f"{type(exc).__name__}: {exc}",
                                       cache_key=key))
            raise
        elapsed = (time.perf_counter() - started) * 1000
        summary_fn = getattr(result, "summary", None)
        summary = summary_fn() if callable(summary_fn) else str(result)[:500]
        annotated = getattr(result, "annotated", None)
        to_dict = getattr(result, "to_dict", None)
        data = to_dict() if callable(to_dict) else {}
        self.calls.append(ToolCall(len(self.calls), tool, plain, summary, elapsed, data=data, cache_key=key,
                                   image=annotated if isinstance(annotated, Image.Image) else None))
        return result

    def cache_key(self, tool: str, plain: dict[str, Any], values: list[Any]) -> str:
        """Digest of the tool name, its plain arguments and the pixels of every image argument."""
        digest = hashlib.sha256(tool.encode())
        digest.update(json.dumps(plain, sort_keys=True, default=repr).encode())
        for value in values:
            if isinstance(value, Image.Image):
                digest.update(self._image_digest(value).encode())
        return digest.hexdigest()[:64]

    def _image_digest(self, image: Image.Image) -> str:
        # The same image object is passed to many tools of one step: hash its pixels once.
        known = self._digests.get(id(image))
        if known is not None and known[0] is image:
            return known[1]
        value = hashlib.blake2b(f"{image.mode}{image.size}".encode() + image.tobytes(), digest_size=16).hexdigest()
        self._digests[id(image)] = (image, value)
        return value


def _plain_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """Arguments as JSON-able values: images become their size, long strings are cut."""
    def plain(value: Any) -> Any:
        if isinstance(value, Image.Image):
            return f"<image {value.width}x{value.height}>"
        if isinstance(value, str | int | float | bool) or value is None:
            return value if not isinstance(value, str) else value[:300]
        if isinstance(value, list | tuple):
            return [plain(v) for v in value][:50]
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in list(value.items())[:50]}
        return repr(value)[:200]

    out = {f"arg{i}": plain(a) for i, a in enumerate(args) if not isinstance(a, Image.Image)}
    out.update({k: plain(v) for k, v in kwargs.items()})
    return out


@dataclass
class SkillContext:
    """Everything a skill needs for one call."""

    query: str  # what the orchestrator asked this (expert, skill) pair
    question: str  # the user's original question
    image: Image.Image
    expert: Any  # an agents.experts.base.Expert; typed loosely so skills never import agents
    spec: Any  # the SkillSpec of this skill
    level2: Any  # the Level2Spec chosen for this call
    trace: ToolTrace
    template: str = ""  # the SKILL.md body


@dataclass
class SkillResult:
    """What a skill hands back to the loop."""

    observation: str
    answer: str | None = None  # set when the tools settled the answer
    #: How far the evidence supports ``answer``, 0-1 (OCR scores, agreement between tools, parse consistency);
    #: the registry's ``orchestrator.min_confidence`` decides answer vs abstain. None: the tools gave no score.
    confidence: float | None = None
    #: When there is no answer: what is missing, in words a user can act on ("no text near a 'total' label").
    missing: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    expert_ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    extra_images: list[Image.Image] = field(default_factory=list)
