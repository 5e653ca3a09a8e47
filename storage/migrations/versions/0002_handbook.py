"""The skill handbook: per-run credits and per (expert, skill, Level-2) Beta posteriors with measured cost.

Revision ID: 0002_handbook
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0002_handbook"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "handbook_credits",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("expert", sa.String(200), nullable=False),
        sa.Column("skill", sa.String(200), nullable=False),
        sa.Column("level2", sa.String(200), nullable=False),
        sa.Column("success", sa.Float(), nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("money", sa.Float(), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name="fk_handbook_credits_run_id_runs", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_handbook_credits"),
    )
    op.create_index("ix_handbook_credits_run_id", "handbook_credits", ["run_id"])
    op.create_index("ix_handbook_credits_expert_skill_level2", "handbook_credits", ["expert", "skill", "level2"])

    op.create_table(
        "handbook",
        sa.Column("expert", sa.String(200), nullable=False),
        sa.Column("skill", sa.String(200), nullable=False),
        sa.Column("level2", sa.String(200), nullable=False),
        sa.Column("alpha", sa.Float(), nullable=False),
        sa.Column("beta", sa.Float(), nullable=False),
        sa.Column("runs", sa.Integer(), nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("money", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("expert", "skill", "level2", name="pk_handbook"),
    )


def downgrade() -> None:
    op.drop_table("handbook")
    op.drop_index("ix_handbook_credits_expert_skill_level2", table_name="handbook_credits")
    op.drop_index("ix_handbook_credits_run_id", table_name="handbook_credits")
    op.drop_table("handbook_credits")
