"""SQLAlchemy 2 ORM models of docs/design.md §5: runs, steps, tool calls, images, ratings, datasets and items.

The schema itself is created by the Alembic migrations in ``storage/migrations``; these classes must stay in step
with them (``tests/test_storage.py`` compares the two). Column types are chosen so that odd input never makes a
write fail: text that cannot be encoded is escaped rather than refused, and datetimes are always UTC-aware.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    func,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """Stores naive UTC (portable across back ends), hands back aware UTC datetimes."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
        return value.replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


class SafeText(TypeDecorator[str]):
    """Text that accepts anything an image or an expert produced.

    Lone surrogates (from badly decoded OCR or model output) cannot be encoded as UTF-8 and would make the whole
    step's commit fail; they are written as ``\\udcxx`` escapes instead so the rest of the text survives. PostgreSQL
    text cannot hold NUL at all, so there a NUL is written as the four characters ``\\x00`` (SQLite keeps it).
    """

    impl: type[String] = Text  # String, not Text: SafeString below narrows it to a bounded String
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str):
            value = str(value)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = value.encode("utf-8", "backslashreplace").decode("utf-8")
        if dialect.name == "postgresql" and "\x00" in value:
            value = value.replace("\x00", "\\x00")
        return value


class SafeString(SafeText):
    """Bounded-length variant of :class:`SafeText` for names and ids.

    A longer value (a model name an orchestrator made up, a long dataset item id) is cut to fit, ending in a hash
    of the whole, so that PostgreSQL (which enforces the length; SQLite does not) never refuses a step over it,
    both back ends store the same text, and distinct long values stay distinct. Comparisons go through the same
    cut, so looking a long value up finds it.
    """

    impl = String
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        value = super().process_bind_param(value, dialect)
        impl = self.impl_instance  # the String(length) built from ``impl`` and this column's arguments
        limit = impl.length if isinstance(impl, String) else None
        if value is None or not limit or len(value) <= limit:
            return value
        if limit <= 32:  # statuses and kinds are checked against fixed choices before they get here
            return value[:limit]
        digest = hashlib.sha256(value.encode("utf-8")).hexdigest()[:16]
        return f"{value[:limit - 17]}~{digest}"


# Named constraints let later SQLite migrations (batch mode, which recreates tables) refer to them.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {datetime: UTCDateTime, str: SafeText, dict[str, Any]: JSON, list[str]: JSON}


class RunRow(Base):
    __tablename__ = "runs"

    id: Mapped[str] = mapped_column(SafeString(32), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    question: Mapped[str]
    image_id: Mapped[str] = mapped_column(SafeString(64), index=True)
    policy: Mapped[str] = mapped_column(SafeString(200))
    registry_hash: Mapped[str] = mapped_column(SafeString(128))
    status: Mapped[str] = mapped_column(SafeString(16))
    answer: Mapped[str | None]
    latency_ms: Mapped[float | None] = mapped_column(Float)
    tokens_in: Mapped[int] = mapped_column(Integer, default=0)
    tokens_out: Mapped[int] = mapped_column(Integer, default=0)
    cost: Mapped[float] = mapped_column(Float, default=0.0)
    error: Mapped[str | None]
    forced_answer: Mapped[bool] = mapped_column(Boolean, default=False)
    config: Mapped[dict[str, Any]] = mapped_column(default=dict)
    finished_at: Mapped[datetime | None]
    dataset: Mapped[str | None] = mapped_column(SafeString(200), index=True)
    item_id: Mapped[str | None] = mapped_column(SafeString(200))
    expected: Mapped[str | None]
    # Who is running it: a 'running' row whose process is gone becomes 'interrupted' at the next start.
    owner_host: Mapped[str | None] = mapped_column(SafeString(255))
    owner_pid: Mapped[int | None] = mapped_column(Integer)
    owner_start: Mapped[str | None] = mapped_column(SafeString(100))
    reason: Mapped[str | None]
    confidence: Mapped[float | None] = mapped_column(Float)
    answer_form: Mapped[dict[str, Any]] = mapped_column(default=dict)
    parent_run_id: Mapped[str | None] = mapped_column(SafeString(32), index=True)
    vote: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # The candidate answer, its evidence features and the calibration's decision; ``calibration`` is the version
    # (content hash) of the calibration that scored it, so a replay can explain its confidence.
    trust: Mapped[dict[str, Any]] = mapped_column(default=dict)
    calibration: Mapped[str | None] = mapped_column(SafeString(64), index=True)

    steps: Mapped[list[StepRow]] = relationship(back_populates="run", order_by="StepRow.index",
                                             cascade="all, delete-orphan", passive_deletes=True)
    # Oldest first by when each live version was saved, so ``ratings[-1]`` is the newest verdict.
    ratings: Mapped[list[Rating]] = relationship(back_populates="run",
                                                 order_by=lambda: [Rating.updated_at, Rating.id],
                                                 cascade="all, delete-orphan", passive_deletes=True)

    __table_args__ = (
        Index("ix_runs_created_at_id", "created_at", "id"),
        Index("ix_runs_status_created_at", "status", "created_at"),
    )


class StepRow(Base):
    __tablename__ = "steps"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(SafeString(32), ForeignKey("runs.id", ondelete="CASCADE"))
    index: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(SafeString(16))
    raw_text: Mapped[str] = mapped_column(default="")
    think: Mapped[str | None]
    model: Mapped[str | None] = mapped_column(SafeString(200), index=True)
    skill: Mapped[str | None] = mapped_column(SafeString(200), index=True)
    level2: Mapped[str | None] = mapped_column(SafeString(200))
    level2_reason: Mapped[str | None]
    query: Mapped[str | None]
    observation: Mapped[str | None]
    answer: Mapped[str | None]
    status: Mapped[str] = mapped_column(SafeString(16), default="ok")
    error: Mapped[str | None]
    violations: Mapped[list[str]] = mapped_column(default=list)
    settled_answer: Mapped[str | None]
    confidence: Mapped[float | None] = mapped_column(Float)
    missing: Mapped[str | None]
    latency_ms: Mapped[float] = mapped_column(Float, default=0.0)
    policy_ms: Mapped[float] = mapped_column(Float, default=0.0)
    tool_ms: Mapped[float] = mapped_column(Float, default=0.0)
    expert_ms: Mapped[float] = mapped_column(Float, default=0.0)
    tokens_in: Mapped[int] = mapped_column(Integer, default=0)
    tokens_out: Mapped[int] = mapped_column(Integer, default=0)
    cost: Mapped[float] = mapped_column(Float, default=0.0)
    routing: Mapped[dict[str, Any]] = mapped_column(default=dict)
    artifacts: Mapped[list[str]] = mapped_column(default=list)
    model_calls: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    run: Mapped[RunRow] = relationship(back_populates="steps")
    tool_calls: Mapped[list[ToolCallRow]] = relationship(back_populates="step", order_by="ToolCallRow.index",
                                                      cascade="all, delete-orphan", passive_deletes=True)

    __table_args__ = (UniqueConstraint("run_id", "index"),)


class ToolCallRow(Base):
    __tablename__ = "tool_calls"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    step_id: Mapped[int] = mapped_column(ForeignKey("steps.id", ondelete="CASCADE"))
    index: Mapped[int] = mapped_column(Integer)
    tool: Mapped[str] = mapped_column(SafeString(200))
    args: Mapped[dict[str, Any]] = mapped_column(default=dict)
    summary: Mapped[str] = mapped_column(default="")
    latency_ms: Mapped[float] = mapped_column(Float, default=0.0)
    image_id: Mapped[str | None] = mapped_column(SafeString(64))
    error: Mapped[str | None]
    data: Mapped[dict[str, Any]] = mapped_column(default=dict)
    cache_key: Mapped[str | None] = mapped_column(SafeString(64), index=True)
    reused: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The tool family's version (code and thresholds, ``vision_tools.versions``) the call ran under.
    tool_version: Mapped[str | None] = mapped_column(SafeString(32))

    step: Mapped[StepRow] = relationship(back_populates="tool_calls")

    __table_args__ = (UniqueConstraint("step_id", "index"),)


class ImageRow(Base):
    __tablename__ = "images"

    id: Mapped[str] = mapped_column(SafeString(64), primary_key=True)  # sha256 hex of the stored bytes
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    mime: Mapped[str] = mapped_column(SafeString(64))
    size_bytes: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class _RatingVersion:
    """The columns of one version of a rating, shared by the live row (``ratings``) and the versions it replaced
    (``rating_history``): an edit moves the old values across unchanged."""

    step_index: Mapped[int | None] = mapped_column(Integer)
    rater: Mapped[str] = mapped_column(SafeString(200))
    verdict: Mapped[str] = mapped_column(SafeString(16))
    score: Mapped[float | None] = mapped_column(Float)
    corrected_answer: Mapped[str | None]
    comment: Mapped[str | None]
    step_marks: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # Box corrections: [{"box": [x0, y0, x1, y1], "label": str}] in the stored image's own pixels.
    boxes: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # When this version was saved (an edit saves a new version in place; undo brings an older one back).
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class Rating(_RatingVersion, Base):
    __tablename__ = "ratings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(SafeString(32), ForeignKey("runs.id", ondelete="CASCADE"))
    # The ``rating_history`` row holding the version this one replaced: what undo restores (None: undo deletes).
    previous_id: Mapped[int | None] = mapped_column(Integer)

    run: Mapped[RunRow] = relationship(back_populates="ratings")

    __table_args__ = (Index("ix_ratings_run_id_id", "run_id", "id"),
                      Index("ix_ratings_rater_updated_at", "rater", "updated_at"))


# One live rating per annotator per run (step_index NULL) or per step. NULLs never collide in a unique index, on
# SQLite and PostgreSQL alike, so the index is over coalesce(step_index, -1): an expression index both support.
Index("uq_ratings_run_rater_step", Rating.run_id, Rating.rater, func.coalesce(Rating.step_index, -1), unique=True)


class RatingHistory(_RatingVersion, Base):
    """A version of a rating that stopped being live: replaced by an edit, or taken back by undo.

    Live ratings stay alone in ``ratings``, so every reader of that table (listings, the handbook, exports) sees
    exactly one verdict per annotator per run or step without filtering; the audit trail lives here."""

    __tablename__ = "rating_history"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    rating_id: Mapped[int] = mapped_column(Integer, index=True)  # the live row this version belonged to
    run_id: Mapped[str] = mapped_column(SafeString(32), ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    replaced_at: Mapped[datetime] = mapped_column(default=utcnow)
    change: Mapped[str] = mapped_column(SafeString(16))  # "edited" | "undone"
    previous_id: Mapped[int | None] = mapped_column(Integer)  # the version before this one, for undo chains


class RegistrySnapshot(Base):
    """A registry exactly as a run used it (experts, orchestrator, skills with their templates), stored once per
    content hash; ``runs.registry_hash`` points here, so a run can be reproduced and exported faithfully after the
    registry file has changed."""

    __tablename__ = "registry_snapshots"

    hash: Mapped[str] = mapped_column(SafeString(128), primary_key=True)
    content: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Dataset(Base):
    __tablename__ = "datasets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(SafeString(200), unique=True)
    description: Mapped[str | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    items: Mapped[list[Item]] = relationship(back_populates="dataset", order_by="Item.id",
                                             cascade="all, delete-orphan", passive_deletes=True)


class Item(Base):
    __tablename__ = "items"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"))
    item_id: Mapped[str] = mapped_column(SafeString(200))
    image_id: Mapped[str | None] = mapped_column(SafeString(64))
    question: Mapped[str]
    answer: Mapped[str | None]
    category: Mapped[str | None] = mapped_column(SafeString(200), index=True)
    extra: Mapped[dict[str, Any]] = mapped_column(default=dict)

    dataset: Mapped[Dataset] = relationship(back_populates="items")

    __table_args__ = (UniqueConstraint("dataset_id", "item_id"),)
