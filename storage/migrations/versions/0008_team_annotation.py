"""A labelling team: assignments (overlap k), reviewers' final labels, box corrections on ratings, conversations.

``assignments`` gives runs to annotators; ``adjudications`` holds a reviewer's final label for a run (verdict,
answer, boxes, reason); ``ratings`` and ``rating_history`` gain ``boxes`` (box corrections in image pixels);
``conversation_turns`` links the runs of a follow-up conversation in Ask.

Revision ID: 0008_team_annotation
Revises: 0007_shared_eval
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008_team_annotation"
down_revision: str | None = "0007_shared_eval"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "assignments",
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("annotator", sa.String(200), nullable=False),
        sa.Column("assigned_by", sa.String(200), nullable=False),
        sa.Column("assigned_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name="fk_assignments_run_id_runs", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("run_id", "annotator", name="pk_assignments"),
    )
    op.create_index("ix_assignments_annotator", "assignments", ["annotator"])
    op.create_table(
        "adjudications",
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("reviewer", sa.String(200), nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("final_answer", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("boxes", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name="fk_adjudications_run_id_runs", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("run_id", name="pk_adjudications"),
    )
    op.create_table(
        "conversation_turns",
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("conversation_id", sa.String(32), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name="fk_conversation_turns_run_id_runs",
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("run_id", name="pk_conversation_turns"),
    )
    op.create_index("ix_conversation_turns_conversation_id", "conversation_turns", ["conversation_id"])
    op.create_index("ix_conversation_turns_owner", "conversation_turns", ["owner"])
    # A plain ADD COLUMN (no batch copy of the table, which would lose the ratings' expression index on SQLite);
    # the server default fills existing rows.
    for table in ("ratings", "rating_history"):
        op.add_column(table, sa.Column("boxes", sa.JSON(), nullable=False, server_default="[]"))


def downgrade() -> None:
    op.drop_index("uq_ratings_run_rater_step", table_name="ratings")  # a batch copy cannot carry it over
    for table in ("rating_history", "ratings"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("boxes")
    op.create_index("uq_ratings_run_rater_step", "ratings",
                    ["run_id", "rater", sa.text("coalesce(step_index, -1)")], unique=True)
    op.drop_index("ix_conversation_turns_owner", table_name="conversation_turns")
    op.drop_index("ix_conversation_turns_conversation_id", table_name="conversation_turns")
    op.drop_table("conversation_turns")
    op.drop_table("adjudications")
    op.drop_index("ix_assignments_annotator", table_name="assignments")
    op.drop_table("assignments")
