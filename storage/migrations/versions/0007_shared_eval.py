"""Evaluations shared by several workers (claims with a lease), and the version of each tool call's tool.

Revision ID: 0007_shared_eval
Revises: 0006_trust_calibration
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007_shared_eval"
down_revision: str | None = "0006_trust_calibration"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "shared_evals",
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("dataset", sa.Text(), nullable=False),
        sa.Column("manifest", sa.JSON(), nullable=False),
        sa.Column("items_total", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_shared_evals"),
    )
    op.create_table(
        "shared_eval_items",
        sa.Column("eval_name", sa.String(200), nullable=False),
        sa.Column("item_id", sa.String(200), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("worker", sa.String(200), nullable=True),
        sa.Column("lease_until", sa.DateTime(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(64), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["eval_name"], ["shared_evals.name"], ondelete="CASCADE",
                                name="fk_shared_eval_items_eval_name_shared_evals"),
        sa.PrimaryKeyConstraint("eval_name", "item_id", name="pk_shared_eval_items"),
    )
    op.create_index("ix_shared_eval_items_eval_name_state", "shared_eval_items", ["eval_name", "state"])
    with op.batch_alter_table("tool_calls") as batch:
        batch.add_column(sa.Column("tool_version", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tool_calls") as batch:
        batch.drop_column("tool_version")
    op.drop_index("ix_shared_eval_items_eval_name_state", table_name="shared_eval_items")
    op.drop_table("shared_eval_items")
    op.drop_table("shared_evals")
