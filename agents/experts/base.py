"""The contract every expert back end fulfils, and the neutral chat format skills speak to them in.

A chat is a list of ``{"role": "system"|"user"|"assistant", "content": [part, ...]}`` where a part is
``{"type": "text", "text": str}`` or ``{"type": "image", "image": PIL.Image.Image}``. Each back end translates this
once: the OpenAI-compatible client into ``image_url`` data URLs, the transformers back end into its processor's
chat template. Errors a person should see (timeouts, refused connections, garbage) are raised as ``ExpertError``.
Boxes in a reply are converted by the back end, which knows what the model saw, into pixels of the chat's first
image (``ExpertReply.boxes``); the reply text is left as the model wrote it, and ``pixel_text`` is the same text
with each box rewritten in those pixels (what the orchestrator is shown: one frame in every observation).
Reasoning (a server's ``reasoning_content``, or a leading ``<think>`` block) is kept apart in ``reasoning``: stored,
never parsed for boxes or answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # annotations only: the registry imports this module, and the vision tools load OpenCV
    from PIL import Image

    from vision_tools.image import Box

ChatMessage = dict[str, Any]


class ExpertError(RuntimeError):
    """An expert call that failed in a way worth showing to the user (message is human readable)."""


@dataclass(frozen=True)
class ExpertBox:
    """A box an expert wrote, in original pixels of the first image of the chat (the question's image)."""

    box: Box
    label: str | None = None


@dataclass
class ExpertReply:
    """What an expert said, and what it cost."""

    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    #: The server's time for the call that answered (the HTTP exchange, or ``generate`` in process): no image
    #: encoding, box conversion or retry pauses, so the router's cost term prices the model, not the client.
    latency_ms: float = 0.0
    #: The model's input size (w, h) after its own resizing, when the back end knows it; boxes in
    #: resized-input pixels are converted with it.
    input_size: tuple[int, int] | None = None
    #: Every box in ``text``, converted from the model's own frame (registry ``box_frame``, or its family's).
    boxes: list[ExpertBox] = field(default_factory=list)
    #: ``text`` with every box rewritten in original pixels of the first image (None: no box, or not rewritable).
    pixel_text: str | None = None
    #: What the model reasoned before replying (kept apart from ``text``; None when it gave none).
    reasoning: str | None = None
    #: The reply's content exactly as the server returned it, a ``<think>`` block included (None: same as ``text``).
    raw: str | None = None

    @property
    def raw_text(self) -> str:
        return self.text if self.raw is None else self.raw


@runtime_checkable
class Expert(Protocol):
    """A model that answers a chat. ``name`` is the registry name; ``neural`` is False for the tools back end."""

    name: str
    neural: bool

    def generate(self, messages: list[ChatMessage], *, max_tokens: int | None = None,
                 temperature: float | None = 0.0) -> ExpertReply: ...


class RegisteredExpert(Expert, Protocol):
    """An expert built from a registry entry: the entry's ``options`` ride on it, so it is the
    ``PairedExpert`` a skill is handed (``skills.base``)."""

    options: dict[str, Any]


def text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def image_part(image: Any) -> dict[str, Any]:
    return {"type": "image", "image": image}


def first_image(messages: list[ChatMessage]) -> Image.Image | None:
    """The first image of a chat: the one boxes in the reply refer to (crops and other images follow it)."""
    for message in messages:
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if part.get("type") == "image":
                return part["image"]
    return None


class ToolsExpert:
    """The ``tools`` back end: no neural model. Skills notice ``neural is False`` and settle the answer from their
    tools' evidence, or say plainly that the tools cannot settle it."""

    neural = False

    def __init__(self, name: str) -> None:
        self.name = name

    def generate(self, messages: list[ChatMessage], *, max_tokens: int | None = None,
                 temperature: float | None = 0.0) -> ExpertReply:
        raise ExpertError(f"expert {self.name!r} uses the tools back end and cannot generate free text")
