"""Stored tool outputs: the faithful, re-loadable form of each tool result, kept once per tool-call cache key.

A tool call's ``cache_key`` (``skills.base.ToolTrace``) names the tool, its exact arguments and the pixels of its
images; the row under that key holds the result as plain JSON (encoded and decoded by ``agents.replay.tool_codec``), so
a rerun with cached tools can hand a skill the very result it got the first time instead of running the tool.
Rows are content-addressed: the same call made by many runs is stored once. Storage only keeps the JSON; what it
means is decided in ``agents``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from storage.models import Base, SafeString, utcnow

if TYPE_CHECKING:
    from storage.store import Store

#: Keys per query when reading many outputs (SQLite's bound-variable limit is far above this).
_CHUNK = 500


class ToolOutput(Base):
    __tablename__ = "tool_outputs"

    cache_key: Mapped[str] = mapped_column(SafeString(64), primary_key=True)
    tool: Mapped[str] = mapped_column(SafeString(200))
    output: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


def save_outputs(store: Store, outputs: dict[str, tuple[str, dict[str, Any]]]) -> int:
    """Keep ``{cache_key: (tool, output)}``; keys already stored are left as they are. Returns how many were new."""
    if not outputs:
        return 0
    known = set(load_outputs(store, outputs, keys_only=True))
    fresh = {key: value for key, value in outputs.items() if key not in known}
    if not fresh:
        return 0
    try:
        with store.transaction() as session:
            session.add_all(ToolOutput(cache_key=key, tool=tool, output=output, created_at=utcnow())
                            for key, (tool, output) in fresh.items())
        return len(fresh)
    except IntegrityError:  # another process stored one of them first: keep the rest, one by one
        saved = 0
        for key, (tool, output) in fresh.items():
            try:
                with store.transaction() as session:
                    if session.get(ToolOutput, key) is None:
                        session.add(ToolOutput(cache_key=key, tool=tool, output=output, created_at=utcnow()))
                        saved += 1
            except IntegrityError:
                continue
        return saved


def load_outputs(store: Store, keys: Iterable[str], *, keys_only: bool = False) -> dict[str, dict[str, Any]]:
    """The stored outputs of ``keys`` that exist, by key (with ``keys_only``, empty dicts: just which exist)."""
    wanted = list(dict.fromkeys(k for k in keys if k))
    found: dict[str, dict[str, Any]] = {}
    with store.reading() as session:
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start:start + _CHUNK]
            if keys_only:
                found.update((key, {}) for key in session.scalars(
                    select(ToolOutput.cache_key).where(ToolOutput.cache_key.in_(chunk))))
            else:
                found.update((key, dict(output or {})) for key, output in session.execute(
                    select(ToolOutput.cache_key, ToolOutput.output).where(ToolOutput.cache_key.in_(chunk))))
    return found
