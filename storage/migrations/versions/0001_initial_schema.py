"""Initial schema: runs, steps, tool_calls, images, ratings, datasets, items (docs/design.md §5).

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def _id() -> sa.Column:
    return sa.Column("id", sa.Integer(), autoincrement=True, nullable=False)


def _created() -> sa.Column:
    return sa.Column("created_at", sa.DateTime(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.String(32), nullable=False),
        _created(),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("image_id", sa.String(64), nullable=False),
        sa.Column("policy", sa.String(200), nullable=False),
        sa.Column("registry_hash", sa.String(128), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("tokens_in", sa.Integer(), nullable=False),
        sa.Column("tokens_out", sa.Integer(), nullable=False),
        sa.Column("cost", sa.Float(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("forced_answer", sa.Boolean(), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("dataset", sa.String(200), nullable=True),
        sa.Column("item_id", sa.String(200), nullable=True),
        sa.Column("expected", sa.Text(), nullable=True),
        sa.Column("owner_host", sa.String(255), nullable=True),
        sa.Column("owner_pid", sa.Integer(), nullable=True),
        sa.Column("owner_start", sa.String(100), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_runs"),
    )
    op.create_index("ix_runs_created_at_id", "runs", ["created_at", "id"])
    op.create_index("ix_runs_status_created_at", "runs", ["status", "created_at"])
    op.create_index("ix_runs_image_id", "runs", ["image_id"])
    op.create_index("ix_runs_dataset", "runs", ["dataset"])

    op.create_table(
        "steps",
        _id(),
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("raw_text", sa.Text(), nullable=False),
        sa.Column("think", sa.Text(), nullable=True),
        sa.Column("model", sa.String(200), nullable=True),
        sa.Column("skill", sa.String(200), nullable=True),
        sa.Column("level2", sa.String(200), nullable=True),
        sa.Column("level2_reason", sa.Text(), nullable=True),
        sa.Column("query", sa.Text(), nullable=True),
        sa.Column("observation", sa.Text(), nullable=True),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        *(sa.Column(name, sa.Float(), nullable=False) for name in ("latency_ms", "policy_ms", "tool_ms", "expert_ms")),
        sa.Column("tokens_in", sa.Integer(), nullable=False),
        sa.Column("tokens_out", sa.Integer(), nullable=False),
        sa.Column("routing", sa.JSON(), nullable=False),
        sa.Column("artifacts", sa.JSON(), nullable=False),
        _created(),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name="fk_steps_run_id_runs", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_steps"),
        sa.UniqueConstraint("run_id", "index", name="uq_steps_run_id_index"),
    )
    op.create_index("ix_steps_model", "steps", ["model"])
    op.create_index("ix_steps_skill", "steps", ["skill"])

    op.create_table(
        "tool_calls",
        _id(),
        sa.Column("step_id", sa.Integer(), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("tool", sa.String(200), nullable=False),
        sa.Column("args", sa.JSON(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("image_id", sa.String(64), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["step_id"], ["steps.id"], name="fk_tool_calls_step_id_steps", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_tool_calls"),
        sa.UniqueConstraint("step_id", "index", name="uq_tool_calls_step_id_index"),
    )

    op.create_table(
        "images",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("mime", sa.String(64), nullable=False),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        _created(),
        sa.PrimaryKeyConstraint("id", name="pk_images"),
    )

    op.create_table(
        "ratings",
        _id(),
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("step_index", sa.Integer(), nullable=True),
        sa.Column("rater", sa.String(200), nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("corrected_answer", sa.Text(), nullable=True),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("step_marks", sa.JSON(), nullable=False),
        _created(),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name="fk_ratings_run_id_runs", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_ratings"),
    )
    op.create_index("ix_ratings_run_id_id", "ratings", ["run_id", "id"])

    op.create_table(
        "datasets",
        _id(),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        _created(),
        sa.PrimaryKeyConstraint("id", name="pk_datasets"),
        sa.UniqueConstraint("name", name="uq_datasets_name"),
    )

    op.create_table(
        "items",
        _id(),
        sa.Column("dataset_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(200), nullable=False),
        sa.Column("image_id", sa.String(64), nullable=True),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("category", sa.String(200), nullable=True),
        sa.Column("extra", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["dataset_id"], ["datasets.id"], name="fk_items_dataset_id_datasets",
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_items"),
        sa.UniqueConstraint("dataset_id", "item_id", name="uq_items_dataset_id_item_id"),
    )
    op.create_index("ix_items_category", "items", ["category"])


def downgrade() -> None:
    for table in ("items", "datasets", "ratings", "images", "tool_calls", "steps", "runs"):
        op.drop_table(table)
