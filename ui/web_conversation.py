"""Follow-up questions in Ask: a conversation is the runs asked one after another on the same image, and a history
sidebar lists each person's past conversations.

The first question on an image starts a conversation; asking again while the same image is loaded continues it
(``Turn.follow``): the new run is stored linked to the others (``storage.team.link_turn``), starts from the image
already in the image store, and its tools reuse the outputs the earlier turns stored (``agents.replay.tool_cache.
StoredToolCache``), so OCR or detection on that image runs once. A new image, or "New conversation", starts
another. The chat shows the earlier turns (question and outcome) above the run in progress. Opening a
conversation from the sidebar loads its image and turns, ready for the next question.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from agents.replay.tool_cache import StoredToolCache
from agents.runtime import Maestro
from storage import team
from ui import render

#: Conversations listed in the sidebar.
HISTORY_SIZE = 30


@dataclass
class Turn:
    """How the next question is asked: a new conversation, or a follow-up that reuses the image's tool outputs."""

    conversation_id: str
    follow_up: bool
    image: str  # the file the run reads: the upload, or the image store's copy for a follow-up
    tool_cache: StoredToolCache | None = None


def file_digest(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def next_turn(maestro: Maestro, upload: str, conversation: dict[str, str] | None) -> Turn:
    """A follow-up when ``conversation`` (``{"id", "image_id"}``) is about the image in ``upload``; else a new one."""
    store = maestro.store
    image_id = (conversation or {}).get("image_id", "")
    if conversation and image_id and store.images.exists(image_id) and file_digest(upload) == image_id:
        return Turn(conversation["id"], True, str(store.images.path(image_id)), StoredToolCache(store))
    return Turn(uuid.uuid4().hex, False, upload)


def earlier_turns(maestro: Maestro, conversation_id: str, before: str | None = None) -> list[gr.ChatMessage]:
    """The conversation's turns so far (up to ``before``, a run id) as question + outcome messages."""
    messages: list[gr.ChatMessage] = []
    for run_id in team.conversation_runs(maestro.store, conversation_id):
        if run_id == before:
            break
        record = maestro.store.get_run(run_id)
        if record is not None:
            messages.append(gr.ChatMessage(role="user", content=render.md_escape(record.question)))
            messages.append(gr.ChatMessage(role="assistant", content=render.outcome_text(record)))
    return messages


def history_choices(maestro: Maestro, owner: str) -> list[tuple[str, str]]:
    """(label, conversation id) of ``owner``'s conversations, the latest first."""
    return [(f"{c.title[:70]}{'…' if len(c.title) > 70 else ''} · {c.turns} turn{'s' if c.turns != 1 else ''}",
             c.id) for c in team.conversations(maestro.store, owner, HISTORY_SIZE)]


def open_conversation(maestro: Maestro, conversation_id: str) -> tuple[str | None, list[gr.ChatMessage], str,
                                                                         dict[str, str] | None]:
    """(image path, chat, last run id, conversation state) for a conversation picked in the sidebar."""
    runs = team.conversation_runs(maestro.store, conversation_id)
    last = maestro.store.get_run(runs[-1]) if runs else None
    if last is None:
        return None, [], "", None
    image = maestro.store.images.path(last.image_id)
    chat = earlier_turns(maestro, conversation_id, before=last.id) + render.render_run(
        last, lambda i: maestro.store.images.path(i) if maestro.store.images.exists(i) else None)
    return str(image), chat, last.id, {"id": conversation_id, "image_id": last.image_id}


def build_history(maestro: Maestro) -> dict[str, Any]:
    """The history sidebar's components (call at the top level of the page)."""
    with gr.Sidebar(label="History", open=False, position="left", elem_id="history-sidebar"):
        gr.Markdown("**Your conversations** (latest first). Pick one to see it and ask a follow-up.")
        listing = gr.Radio([], label="Conversations", show_label=False, elem_id="history-list")
        new = gr.Button("New conversation", size="sm", elem_id="history-new")
    return {"list": listing, "new": new}
