"""Reruns: the faithful output of each tool call, stored once per cache key, so a rerun can reuse it.

Revision ID: 0005_rerun
Revises: 0004_ratings
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005_rerun"
down_revision: str | None = "0004_ratings"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "tool_outputs",
        sa.Column("cache_key", sa.String(64), nullable=False),
        sa.Column("tool", sa.String(200), nullable=False),
        sa.Column("output", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("cache_key", name="pk_tool_outputs"),
    )


def downgrade() -> None:
    op.drop_table("tool_outputs")
