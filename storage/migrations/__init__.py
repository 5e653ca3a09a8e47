"""Alembic migrations of the Maestro schema; run them with ``storage.db.migrate`` (no alembic.ini needed)."""
