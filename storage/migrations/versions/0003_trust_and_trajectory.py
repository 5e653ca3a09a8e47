"""Honest outcomes and exact trajectories: why a run abstained or failed, confidence, the answer form, rerun links,
self-consistency votes; per step the violations, settled answer, confidence, cost and the exact model calls; per
tool call a cache key and whether it was reused; registry snapshots stored once per content hash.

Revision ID: 0003_trust
Revises: 0002_handbook
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003_trust"
down_revision: str | None = "0002_handbook"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("reason", sa.Text(), nullable=True))
        batch.add_column(sa.Column("confidence", sa.Float(), nullable=True))
        batch.add_column(sa.Column("answer_form", sa.JSON(), nullable=False, server_default="{}"))
        batch.add_column(sa.Column("parent_run_id", sa.String(32), nullable=True))
        batch.add_column(sa.Column("vote", sa.JSON(), nullable=False, server_default="{}"))
        batch.create_index("ix_runs_parent_run_id", ["parent_run_id"])
    with op.batch_alter_table("steps") as batch:
        batch.add_column(sa.Column("violations", sa.JSON(), nullable=False, server_default="[]"))
        batch.add_column(sa.Column("settled_answer", sa.Text(), nullable=True))
        batch.add_column(sa.Column("confidence", sa.Float(), nullable=True))
        batch.add_column(sa.Column("missing", sa.Text(), nullable=True))
        batch.add_column(sa.Column("cost", sa.Float(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("model_calls", sa.JSON(), nullable=False, server_default="[]"))
    with op.batch_alter_table("tool_calls") as batch:
        batch.add_column(sa.Column("cache_key", sa.String(64), nullable=True))
        batch.add_column(sa.Column("reused", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.create_index("ix_tool_calls_cache_key", ["cache_key"])
    op.create_table(
        "registry_snapshots",
        sa.Column("hash", sa.String(128), nullable=False),
        sa.Column("content", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("hash", name="pk_registry_snapshots"),
    )
    # Violations and settled answers used to travel inside the routing JSON; give them their own columns.
    steps = sa.table("steps", sa.column("id", sa.Integer), sa.column("routing", sa.JSON),
                     sa.column("violations", sa.JSON), sa.column("settled_answer", sa.Text))
    connection = op.get_bind()
    for step_id, routing in connection.execute(sa.select(steps.c.id, steps.c.routing)).all():
        if not isinstance(routing, dict) or not ({"violations", "settled_answer"} & routing.keys()):
            continue
        kept = {k: v for k, v in routing.items() if k not in ("violations", "settled_answer")}
        connection.execute(steps.update().where(steps.c.id == step_id).values(
            routing=kept, violations=list(routing.get("violations") or []),
            settled_answer=routing.get("settled_answer")))


def downgrade() -> None:
    op.drop_table("registry_snapshots")
    with op.batch_alter_table("tool_calls") as batch:
        batch.drop_index("ix_tool_calls_cache_key")
        batch.drop_column("reused")
        batch.drop_column("cache_key")
    with op.batch_alter_table("steps") as batch:
        for name in ("model_calls", "cost", "missing", "confidence", "settled_answer", "violations"):
            batch.drop_column(name)
    with op.batch_alter_table("runs") as batch:
        batch.drop_index("ix_runs_parent_run_id")
        for name in ("vote", "parent_run_id", "answer_form", "confidence", "reason"):
            batch.drop_column(name)
