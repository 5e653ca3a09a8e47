"""Named locks for the few writes that must not interleave across processes (migrations, a dataset's items, the
handbook's aggregates), taken inside the caller's transaction and released when it ends.

On SQLite every write transaction already holds the database's one write lock from its start (``BEGIN
IMMEDIATE``), so there is nothing more to take. On PostgreSQL transactions run side by side (READ COMMITTED): two
that both find a row missing would both insert it, and two that recompute the same aggregate would each miss the
other's input. A transaction-scoped advisory lock per name makes them take turns; since every statement sees what
was committed before it started, the second one, once it holds the lock, sees all of the first's work.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import Connection, func, select
from sqlalchemy.orm import Session


def lock_key(name: str) -> int:
    """A stable signed 64-bit key for ``name`` (PostgreSQL advisory locks are keyed by bigint)."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8", "backslashreplace")).digest()[:8], "big", signed=True)


def hold(db: Connection | Session, name: str) -> None:
    """Wait until this transaction holds the lock ``name``; it is released when the transaction ends."""
    bind = db.get_bind() if isinstance(db, Session) else db
    if bind.dialect.name == "postgresql":
        db.execute(select(func.pg_advisory_xact_lock(lock_key(f"maestro:{name}"))))
