"""Calibrated trust: each run keeps its candidate answer, the evidence features and the calibrated decision
(``runs.trust``), and the version of the calibration that scored it (``runs.calibration``), so a replay can explain
its confidence and rated runs become labelled data for the next calibration.

Revision ID: 0006_trust_calibration
Revises: 0005_rerun
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006_trust_calibration"
down_revision: str | None = "0005_rerun"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("trust", sa.JSON(), nullable=False, server_default="{}"))
        batch.add_column(sa.Column("calibration", sa.String(64), nullable=True))
        batch.create_index("ix_runs_calibration", ["calibration"])


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_index("ix_runs_calibration")
        batch.drop_column("calibration")
        batch.drop_column("trust")
