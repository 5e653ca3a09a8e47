"""What a skill receives, what it returns, and the trace that records every tool call inside it.

A skill is called with a ``SkillContext`` (the orchestrator's query, the user's question, the image, the chosen
expert) and returns a ``SkillResult``: the observation text that goes back into ``<information>``, the answer its
tools settled (if they did), the Level-2 sub-skill chosen and why, and the recorded tool calls.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

import numpy as np
from PIL import Image

from storage.trace import ModelCall, ToolCall
from vision_tools.versions import tool_version

if TYPE_CHECKING:
    from skills.spec import Level2Spec, SkillSpec

T = TypeVar("T")


@dataclass
class CachedOutput:
    """A tool's result as stored by an earlier run, ready to hand to the skill instead of running the tool."""

    result: Any
    #: Content id of ``result.annotated`` in the image store, when it is stored there already.
    annotated_id: str | None = None


class ToolCache(Protocol):
    """Where a rerun finds the outputs of tool calls made before (``agents.replay.tool_cache.StoredToolCache``)."""

    def get(self, tool: str, key: str) -> CachedOutput | None:
        """The stored output of the call ``key`` of ``tool``, or None to run the tool."""
        ...


_active_cache: ContextVar[ToolCache | None] = ContextVar("maestro_tool_cache", default=None)


@contextmanager
def reusing_tool_outputs(cache: ToolCache | None) -> Iterator[None]:
    """Every ``ToolTrace`` made inside (in this thread or task) reuses outputs from ``cache`` (None: run tools).

    A context variable, like the run's time budget (``agents.budget``), so the loop needs no extra argument."""
    token = _active_cache.set(cache)
    try:
        yield
    finally:
        _active_cache.reset(token)


_known_images: ContextVar[dict[int, tuple[Image.Image, str]] | None] = ContextVar("maestro_known_images",
                                                                                  default=None)


@contextmanager
def image_known_as(image: Image.Image, content_id: str) -> Iterator[None]:
    """Inside, ``image`` (this very object) is keyed in tool calls by ``content_id`` (the SHA-256 of the file it was
    decoded from, which fixes its pixels) instead of a hash of its pixels: a run's main image is hashed once, by
    the image store, not again by every step (the largest fixed cost of a cached rerun)."""
    token = _known_images.set({id(image): (image, f"file:{content_id}")})
    try:
        yield
    finally:
        _known_images.reset(token)


class ToolTrace:
    """Runs tools and records each call (name, arguments, one-line summary, annotated image, time, error), and
    collects the model calls the skill makes (``skills.runner.ask_expert`` appends them).

    Each call gets a ``cache_key``: a digest of the tool's name and function, its exact arguments and the pixels of
    its image arguments, so a later rerun can recognise the same call. With a ``cache`` (by default the one opened
    by ``reusing_tool_outputs``), a call whose output is stored is not run: the stored result is handed back and
    the call is recorded with ``reused=True``."""

    def __init__(self, cache: ToolCache | None = None) -> None:
        self.calls: list[ToolCall] = []
        self.model_calls: list[ModelCall] = []  # every expert call inside the skill: exact prompt and raw reply
        self.cache = cache if cache is not None else _active_cache.get()
        self._digests: dict[int, tuple[Image.Image, str]] = dict(_known_images.get() or {})
        # Each result of this trace's calls, by object: passed to a later call (as an argument, or as the object a
        # bound method belongs to), it is keyed by the call that produced it.
        self._produced: dict[int, tuple[Any, str]] = {}

    @property
    def total_ms(self) -> float:
        return sum(call.latency_ms for call in self.calls)

    def call(self, tool: str, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Run ``fn(*args, **kwargs)`` as tool ``tool``; the result's ``summary()`` and ``annotated`` are kept."""
        started = time.perf_counter()
        plain = _plain_args(args, kwargs)
        version = tool_version(fn)
        key = self.cache_key(tool, fn, args, kwargs, version)
        stored = self.cache.get(tool, key) if self.cache is not None else None
        if stored is not None:
            self._record(tool, plain, stored.result, started, key, version, reused=True,
                         image_id=stored.annotated_id)
            self._remember(stored.result, key)
            return cast(T, stored.result)
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            self.calls.append(ToolCall(len(self.calls), tool, plain, f"failed: {exc}",
                                       (time.perf_counter() - started) * 1000, error=f"{type(exc).__name__}: {exc}",
                                       cache_key=key, tool_version=version or None))
            raise
        self._record(tool, plain, result, started, key, version)
        self._remember(result, key)
        return result

    def _remember(self, result: object, key: str) -> None:
        if not (result is None or isinstance(result, str | bool | int | float)):  # plain values key as themselves
            self._produced[id(result)] = (result, key)

    def _record(self, tool: str, plain: dict[str, Any], result: Any, started: float, key: str, version: str, *,
                reused: bool = False, image_id: str | None = None) -> None:
        summary_fn = getattr(result, "summary", None)
        # A tool that found nothing returns None: say so rather than print "None".
        summary = summary_fn() if callable(summary_fn) else ("nothing found" if result is None else str(result)[:500])
        annotated = getattr(result, "annotated", None)
        to_dict = getattr(result, "to_dict", None)
        data = to_dict() if callable(to_dict) else {}
        elapsed = (time.perf_counter() - started) * 1000
        self.calls.append(ToolCall(len(self.calls), tool, plain, summary, elapsed, data=data, cache_key=key,
                                   reused=reused, image_id=image_id, tool_version=version or None,
                                   output=None if reused else result,
                                   image=annotated if isinstance(annotated, Image.Image) else None))

    def cache_key(self, tool: str, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                  version: str | None = None) -> str:
        """Digest of the tool name, the function it runs and its family's version (code and thresholds,
        ``vision_tools.versions``), every argument in full and the pixels of every image.

        Unlike the recorded ``args`` (cut for display), nothing is shortened here: two calls share a key only when
        their arguments are equal, so a rerun never reuses the output of a different call."""
        digest = hashlib.sha256(tool.encode())
        digest.update(f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', repr(fn))}".encode())
        digest.update((tool_version(fn) if version is None else version).encode())
        owner = getattr(fn, "__self__", None)
        if owner is not None and not isinstance(owner, type | ModuleType):
            # A bound method's result depends on its object: reading.field("total") on two receipts differs.
            digest.update(json.dumps(self._exact(owner), sort_keys=True).encode())
        digest.update(json.dumps([self._exact(a) for a in args], sort_keys=True).encode())
        digest.update(json.dumps({k: self._exact(v) for k, v in kwargs.items()}, sort_keys=True).encode())
        return digest.hexdigest()[:64]

    def _exact(self, value: Any) -> Any:
        """A JSON-able form of ``value`` that differs whenever the value does (images by their pixels)."""
        produced = self._produced.get(id(value))
        if produced is not None and produced[0] is value:
            return {"output_of": produced[1]}
        if isinstance(value, Image.Image):
            return {"image": self._image_digest(value)}
        if isinstance(value, Enum):
            return {"enum": f"{type(value).__qualname__}.{value.name}"}
        if value is None or isinstance(value, str | bool | int):
            return value
        if isinstance(value, float):
            return {"float": repr(value)}  # repr round-trips exactly, NaN and infinities included
        if isinstance(value, list | tuple):
            return {type(value).__name__: [self._exact(v) for v in value]}
        if isinstance(value, dict):
            return {"dict": [[self._exact(k), self._exact(v)] for k, v in value.items()]}
        if is_dataclass(value) and not isinstance(value, type):
            return {type(value).__qualname__: {f.name: self._exact(getattr(value, f.name)) for f in fields(value)}}
        if isinstance(value, np.ndarray | np.generic):
            array = np.ascontiguousarray(value)
            return {"ndarray": [str(array.dtype), list(array.shape),
                                hashlib.sha256(array.tobytes()).hexdigest()[:32]]}
        # Anything else (an object without a value form) is unique to this call: its key can never match a
        # stored one, so it is always run.
        return {"object": f"{type(value).__qualname__}@{id(value)}:{time.perf_counter_ns()}"}

    def _image_digest(self, image: Image.Image) -> str:
        # The same image object is passed to many tools of one step: hash its pixels once.
        known = self._digests.get(id(image))
        if known is not None and known[0] is image:
            return known[1]
        # sha256 runs on the CPU's SHA instructions: twice as fast as blake2b on a 1000x1000 image here.
        digest = hashlib.sha256(f"{image.mode}{image.size}".encode())
        digest.update(image.tobytes())
        value = digest.hexdigest()[:32]
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


class ExpertText(Protocol):
    """What a skill reads of an expert's reply (``agents.experts.base.ExpertReply`` has it)."""

    text: str
    tokens_in: int
    tokens_out: int


class PairedExpert(Protocol):
    """What a skill may use of the expert it is paired with. ``agents.experts`` implements it (the registry sets
    ``options`` from the expert's spec); skills never import ``agents``. ``neural`` is False for the tools back end."""

    name: str
    neural: bool
    options: dict[str, Any]

    def generate(self, messages: list[dict[str, Any]], *, max_tokens: int | None = None,
                 temperature: float = 0.0) -> ExpertText: ...


@dataclass
class SkillContext:
    """Everything a skill needs for one call."""

    query: str  # what the orchestrator asked this (expert, skill) pair
    question: str  # the user's original question
    image: Image.Image
    expert: PairedExpert
    spec: SkillSpec  # this skill's SKILL.md
    level2: Level2Spec  # the Level-2 sub-skill chosen for this call (a skill has at least one)
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
    #: Numeric evidence about ``answer`` for the calibrator that turns evidence into P(correct) (issue 22): e.g.
    #: ``span_min_char`` (the recogniser's score of the answer's least legible character), ``option_margin``.
    #: Names are stable; a feature a skill cannot measure is left out, never filled with a guess.
    features: dict[str, float] = field(default_factory=dict)
    expert_ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    extra_images: list[Image.Image] = field(default_factory=list)
