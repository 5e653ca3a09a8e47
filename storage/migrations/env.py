"""Alembic environment: runs on the connection ``storage.db.migrate`` passes in, or on ``sqlalchemy.url``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from storage.models import Base

config = context.config
target_metadata = Base.metadata


def run_offline() -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata,
                      literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        # The caller holds the transaction (BEGIN IMMEDIATE on SQLite), so concurrent starts migrate one at a time.
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True,
                          transactional_ddl=True)
        context.run_migrations()
        return
    url = config.get_main_option("sqlalchemy.url")
    if url is None:
        raise RuntimeError("the Alembic configuration names no sqlalchemy.url to migrate")
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
            context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
