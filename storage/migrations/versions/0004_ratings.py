"""Ratings people can edit and undo: one live rating per annotator per run (or per step), earlier versions kept.

``ratings`` gains ``updated_at`` (when the live version was saved) and ``previous_id`` (the history row it
replaced, which undo restores), and a unique index over (run_id, rater, coalesce(step_index, -1)) — an expression
index, because NULL step indexes never collide in a plain unique index on SQLite or PostgreSQL. Replaced and undone
versions go to the new ``rating_history`` table. Existing duplicates (the same annotator rating the same run twice
before this revision) keep their newest row live and move the older ones to the history, chained for undo.

Revision ID: 0004_ratings
Revises: 0003_trust
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision: str = "0004_ratings"
down_revision: str | None = "0003_trust"
branch_labels: str | None = None
depends_on: str | None = None

_COPIED = {"run_id": sa.String, "step_index": sa.Integer, "rater": sa.String, "verdict": sa.String,
           "score": sa.Float, "corrected_answer": sa.Text, "comment": sa.Text, "step_marks": sa.JSON,
           "created_at": sa.DateTime}


def upgrade() -> None:
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("rating_id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(32), nullable=False),
        sa.Column("step_index", sa.Integer(), nullable=True),
        sa.Column("rater", sa.String(200), nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("corrected_answer", sa.Text(), nullable=True),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("step_marks", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("replaced_at", sa.DateTime(), nullable=False),
        sa.Column("change", sa.String(16), nullable=False),
        sa.Column("previous_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name="fk_rating_history_run_id_runs", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_rating_history"),
    )
    op.create_index("ix_rating_history_rating_id", "rating_history", ["rating_id"])
    op.create_index("ix_rating_history_run_id", "rating_history", ["run_id"])
    with op.batch_alter_table("ratings") as batch:
        batch.add_column(sa.Column("updated_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("previous_id", sa.Integer(), nullable=True))
    ratings = sa.table("ratings", sa.column("id", sa.Integer), sa.column("updated_at", sa.DateTime),
                       sa.column("previous_id", sa.Integer), *(sa.column(c, t) for c, t in _COPIED.items()))
    # A real Table (with its primary key) so each insert reports the new row's id, on every back end.
    history = sa.Table("rating_history", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                       sa.Column("rating_id", sa.Integer), sa.Column("updated_at", sa.DateTime),
                       sa.Column("replaced_at", sa.DateTime), sa.Column("change", sa.String),
                       sa.Column("previous_id", sa.Integer), *(sa.Column(c, t) for c, t in _COPIED.items()))
    connection = op.get_bind()
    connection.execute(ratings.update().values(updated_at=ratings.c.created_at))
    _fold_duplicates(connection, ratings, history)
    with op.batch_alter_table("ratings") as batch:
        batch.alter_column("updated_at", existing_type=sa.DateTime(), nullable=False)
        batch.create_index("ix_ratings_rater_updated_at", ["rater", "updated_at"])
    op.create_index("uq_ratings_run_rater_step", "ratings",
                    ["run_id", "rater", sa.text("coalesce(step_index, -1)")], unique=True)


def _fold_duplicates(connection: sa.Connection, ratings: sa.TableClause, history: sa.Table) -> None:
    """Per (run, rater, step): the newest row stays live; older ones become its history, oldest first."""
    rows = connection.execute(sa.select(ratings).order_by(ratings.c.id)).mappings().all()
    groups: dict[tuple[object, ...], list[sa.RowMapping]] = defaultdict(list)
    for row in rows:
        groups[(row["run_id"], row["rater"], row["step_index"])].append(row)
    for versions in groups.values():
        if len(versions) < 2:
            continue
        *older, live = versions
        previous: int | None = None
        for row, replaced_by in zip(older, versions[1:], strict=True):
            result = connection.execute(history.insert().values(
                rating_id=live["id"], updated_at=row["created_at"], replaced_at=replaced_by["created_at"],
                change="edited", previous_id=previous, **{c: row[c] for c in _COPIED}))
            key = result.inserted_primary_key
            if key is None:  # a single-row INSERT always reports its key; checked for the type
                raise RuntimeError("rating_history insert returned no primary key")
            previous = int(key[0])
            connection.execute(ratings.delete().where(ratings.c.id == row["id"]))
        connection.execute(ratings.update().where(ratings.c.id == live["id"]).values(
            previous_id=previous, created_at=older[0]["created_at"]))


def downgrade() -> None:
    op.drop_index("uq_ratings_run_rater_step", table_name="ratings")
    with op.batch_alter_table("ratings") as batch:
        batch.drop_index("ix_ratings_rater_updated_at")
        batch.drop_column("previous_id")
        batch.drop_column("updated_at")
    op.drop_index("ix_rating_history_run_id", table_name="rating_history")
    op.drop_index("ix_rating_history_rating_id", table_name="rating_history")
    op.drop_table("rating_history")
