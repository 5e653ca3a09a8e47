"""Opening the store: data directory, engine (SQLite WAL + busy timeout by default), migrations, crash recovery.

``open_store()`` is what every front end calls. For SQLite the engine is tuned for several writers on one file (an
evaluation's worker threads, the web UI and the CLI at once): WAL so readers never block, a 30 s busy timeout, and
write transactions opened with ``BEGIN IMMEDIATE`` so a writer waits for the lock up front instead of failing with
"database is locked" when it upgrades a read lock that another writer has made stale.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from datetime import date, datetime
from enum import Enum
from pathlib import Path, PurePath
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlalchemy.pool import StaticPool

from storage.locks import hold
from storage.store import Store

BUSY_TIMEOUT_S = 30.0
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
IMMEDIATE = "maestro_sqlite_immediate"  # execution option read by the "begin" listener

__all__ = ["BUSY_TIMEOUT_S", "DatabaseUnavailable", "Store", "default_data_dir", "jsonable", "make_engine", "migrate", "open_store"]


def default_data_dir() -> Path:
    """``$MAESTRO_HOME`` if set, else ``~/.maestro``."""
    home = os.environ.get("MAESTRO_HOME")
    return Path(home).expanduser() if home else Path.home() / ".maestro"


def jsonable(value: Any, _depth: int = 0) -> Any:
    """A JSON-safe copy of ``value`` that keeps as much as possible: tool arguments and expert data are untrusted
    and arbitrary (numpy scalars, tuples, tuple keys, paths, bytes), and one odd value must not lose a whole step."""
    if _depth > 64:
        return repr(value)
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)  # NaN is not JSON (Postgres refuses it)
    if isinstance(value, Mapping):
        return {k if isinstance(k, str) else str(k): jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v, _depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((jsonable(v, _depth + 1) for v in value), key=repr)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, Enum):
        return jsonable(value.value, _depth + 1)
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "backslashreplace")
    if is_dataclass(value) and not isinstance(value, type):
        return jsonable(asdict(value), _depth + 1)
    if hasattr(value, "tolist"):  # numpy arrays and scalars, torch tensors
        try:
            return jsonable(value.tolist(), _depth + 1)
        except Exception:  # noqa: BLE001 - anything odd falls through to repr
            pass
    return repr(value)


def _dumps(value: Any) -> str:
    # ensure_ascii keeps lone surrogates as \\udcxx escapes, which SQLite can store and json.loads gives back.
    return json.dumps(jsonable(value), ensure_ascii=True)


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, a busy timeout, foreign keys and immediate write transactions."""
    parsed = make_url(url)
    if parsed.drivername == "postgresql":  # psycopg 3 (the postgres extra), whichever default SQLAlchemy has
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, json_serializer=_dumps, pool_pre_ping=True)
    memory = parsed.database in (None, "", ":memory:") or "mode=memory" in str(parsed.query)
    kwargs: dict[str, Any] = {"connect_args": {"timeout": BUSY_TIMEOUT_S, "check_same_thread": False}}
    if memory:
        kwargs["poolclass"] = StaticPool  # one shared connection, or every session would see an empty database
    engine = create_engine(url, json_serializer=_dumps, **kwargs)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (below)
        cur = dbapi_conn.cursor()
        try:
            if not memory:
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")  # durable against process crashes, which is the case here
            cur.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
            cur.execute("PRAGMA foreign_keys=ON")
        finally:
            cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(IMMEDIATE) else "BEGIN")

    return engine


def writer(engine: Engine) -> Engine:
    """The same engine whose transactions take the write lock when they begin (SQLite) - use it for every write."""
    return engine.execution_options(**{IMMEDIATE: True}) if engine.dialect.name == "sqlite" else engine


def alembic_config(url: str) -> Config:
    """An Alembic ``Config`` built in code, pointing at the migrations shipped inside the package."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(engine: Engine, url: str | None = None) -> bool:
    """Upgrade the schema to head; returns whether anything had to be done (False when already at head)."""
    cfg = alembic_config(url or engine.url.render_as_string(hide_password=False))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    with engine.connect() as conn:
        if MigrationContext.configure(conn).get_current_revision() == head:
            return False
    # Holding the write lock makes concurrent starts migrate one after the other; the second finds head.
    with writer(engine).connect() as conn, conn.begin():
        hold(conn, "migrate")
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    return True


def open_store(data_dir: str | Path | None = None, db_url: str | None = None) -> Store:
    """Open (creating if needed) the store in ``data_dir``; the DB is ``<data_dir>/maestro.db`` unless ``db_url``.

    Runs migrations to head and marks runs whose owning process has died ``interrupted``.
    """
    root = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise DataDirUnusable(f"data directory {root} is a file, not a directory: "
                              "choose another --data-dir (or MAESTRO_HOME)") from None
    except OSError as exc:
        raise DataDirUnusable(f"cannot create data directory {root}: {exc.strerror or exc}") from None
    url = db_url or f"sqlite:///{(root / 'maestro.db').resolve()}"
    try:
        engine = make_engine(url)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise DatabaseUnavailable(_unusable(url, exc)) from exc
    try:
        migrate(engine, url)
        store = Store(root, url, engine, writer(engine))
        store.mark_interrupted()
    except (DBAPIError, CommandError) as exc:  # unreachable server, not a database file, a schema from elsewhere
        engine.dispose()
        raise DatabaseUnavailable(_unusable(url, exc)) from exc
    except BaseException:
        engine.dispose()
        raise
    return store


class DataDirUnusable(ValueError):
    """The data directory cannot be created or is not a directory; one line says why."""


class DatabaseUnavailable(ValueError):
    """The database URL cannot be used (malformed, driver missing, server unreachable); one line says why."""


def _unusable(url: str, exc: BaseException) -> str:
    try:
        shown = make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        shown = "(malformed URL)"
    cause = getattr(exc, "orig", None) or exc
    reason = " ".join(str(cause).split()) or type(cause).__name__
    if isinstance(exc, ImportError):
        reason = f"its driver is not installed ({reason}); for PostgreSQL: pip install -c constraints.txt -e '.[postgres]'"
    return f"cannot open database {shown}: {reason}"
