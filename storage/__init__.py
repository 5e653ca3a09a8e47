"""Storage: runs, steps, ratings and datasets in SQL (SQLite by default), images content-addressed on disk.

Public API: ``open_store`` / ``default_data_dir`` to open a data directory, the ``Store`` it returns, the
``ImageStore``/``ImageRef`` it holds as ``store.images``, and the plain record dataclasses every caller exchanges
with it. Nothing here imports the rest of the project.
"""

from storage import shared_eval  # noqa: F401  (its tables join the metadata)
from storage.db import (
    BUSY_TIMEOUT_S,
    DatabaseUnavailable,
    DataDirUnusable,
    default_data_dir,
    migrate,
    open_store,
)
from storage.handbook import Credit, HandbookRecord
from storage.images import ImageRef, ImageStore, check_image_id
from storage.ratings import Agreement, PairAgreement, RatingInput, Saved, Undone, cohen_kappa, run_agreement
from storage.records import DatasetItem, RatingVersion, RunSummary
from storage.store import Store
from storage.tool_outputs import load_outputs, save_outputs
from storage.trace import (
    FINISHED_STATUSES,
    RATING_FILTERS,
    RUN_STATUSES,
    STEP_KINDS,
    STEP_STATUSES,
    VERDICTS,
    ModelCall,
    RatingRecord,
    RunRecord,
    RunStatus,
    Step,
    ToolCall,
)

__all__ = [
    "BUSY_TIMEOUT_S", "FINISHED_STATUSES", "RATING_FILTERS", "RUN_STATUSES", "STEP_KINDS", "STEP_STATUSES",
    "VERDICTS", "Agreement", "Credit", "DatabaseUnavailable", "DataDirUnusable", "DatasetItem", "HandbookRecord", "ImageRef",
    "ImageStore", "ModelCall", "PairAgreement", "RatingInput", "RatingRecord", "RatingVersion", "RunRecord",
    "RunStatus", "RunSummary", "Saved", "Step", "Store", "ToolCall", "Undone", "check_image_id", "cohen_kappa",
    "default_data_dir", "load_outputs", "migrate", "open_store", "run_agreement", "save_outputs",
]
