"""The one mapping between ORM rows and the plain records of ``storage.records`` (nothing ORM leaves the package).

A record field is copied to and from the ORM column of the same name; fields without a column (relationships,
transient live images) are handled here explicitly, so a new column needs a field and a migration, nothing more.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

from sqlalchemy import inspect

from storage import models as orm
from storage.models import utcnow
from storage.records import DatasetItem, RunSummary
from storage.trace import TRANSIENT, ModelCall, RatingRecord, RunRecord, Step, ToolCall

R = TypeVar("R")


def _columns(table: type[orm.Base]) -> dict[str, type]:
    """Column name -> Python type of each column of ``table``."""
    out: dict[str, type] = {}
    for column in inspect(table).columns:
        try:
            out[column.key] = column.type.python_type
        except NotImplementedError:  # JSON and friends
            out[column.key] = object
    return out


_STEP_COLUMNS = _columns(orm.StepRow)
_CALL_COLUMNS = _columns(orm.ToolCallRow)
_RUN_COLUMNS = _columns(orm.RunRow)


def _coerce(value: Any, kind: type) -> Any:
    """Numbers arrive as numpy scalars or strings from tools; store plain Python values."""
    if value is None:
        return None
    if kind in (int, float, bool) and not isinstance(value, kind):
        return kind(value)
    if kind is dict:
        return dict(value)
    if kind is list:
        return list(value)
    return value


def _values(record: Any, columns: dict[str, type], skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The column values of ``record``: every stored field that has a column of the same name."""
    return {f.name: _coerce(getattr(record, f.name), columns[f.name]) for f in fields(record)
            if f.name in columns and f.name not in skip and f.metadata != TRANSIENT}


def _record(cls: type[R], row: Any, **extra: Any) -> R:
    """A record of ``cls`` from ``row``: every field with a column of the same name, plus ``extra``."""
    names = {f.name for f in fields(cls) if f.metadata != TRANSIENT}  # type: ignore[arg-type]
    values = {name: getattr(row, name) for name in names if name not in extra and hasattr(row, name)}
    return cls(**values, **extra)


def step_row(step: Step) -> orm.StepRow:
    """A new ``Step`` row (with its tool-call rows) for ``step``."""
    calls = [orm.ToolCallRow(**_values(c, _CALL_COLUMNS, skip=("id", "step_id"))) for c in step.tool_calls]
    values = _values(step, _STEP_COLUMNS, skip=("id", "run_id", "created_at", "model_calls"))
    return orm.StepRow(**values, model_calls=[c.to_dict() for c in step.model_calls], created_at=utcnow(),
                    tool_calls=calls)


def tool_call_record(row: orm.ToolCallRow) -> ToolCall:
    return _record(ToolCall, row, args=dict(row.args or {}), data=dict(row.data or {}))


def step_record(row: orm.StepRow) -> Step:
    return _record(Step, row, routing=dict(row.routing or {}), artifacts=list(row.artifacts or []),
                   violations=list(row.violations or []),
                   model_calls=[ModelCall.from_dict(c) for c in row.model_calls or []],
                   tool_calls=[tool_call_record(c) for c in row.tool_calls])


def rating_record(row: orm.Rating) -> RatingRecord:
    return _record(RatingRecord, row, step_marks=dict(row.step_marks or {}), boxes=list(row.boxes or []))


def run_record(row: orm.RunRow) -> RunRecord:
    return _record(RunRecord, row, config=dict(row.config or {}), answer_form=dict(row.answer_form or {}),
                   vote=dict(row.vote or {}), trust=dict(row.trust or {}), steps=[step_record(s) for s in row.steps],
                   ratings=[rating_record(r) for r in row.ratings])


def run_summary(row: orm.RunRow, verdict: str | None, pairs: list[tuple[str, str]]) -> RunSummary:
    return _record(RunSummary, row, skills=[s for _, s in pairs], models=[m for m, _ in pairs], rating=verdict)


def dataset_item(row: orm.Item) -> DatasetItem:
    return _record(DatasetItem, row, extra=dict(row.extra or {}))
