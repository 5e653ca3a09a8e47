"""Writing export files safely (a reader never sees half a file) and reading one back for training.

``atomic_write`` writes under a temporary name and renames into place; ``write_jsonl`` and ``write_parquet`` write
rows that way; ``load_export`` reads an exported format as a ``datasets.Dataset`` with absolute image paths, the
way TRL's trainers take it.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: File stem per format; verl reads parquet only, the JSONL beside it is for people and other tools.
FILE_STEMS = {"sft": "sft", "sft_experts": "sft_experts", "dpo": "dpo", "kto": "kto", "grpo": "grpo",
              "verl": "verl_train", "ratings": "ratings", "labels": "labels", "grounding": "grounding",
              "grounding_experts": "grounding_experts"}


def atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> int:
    atomic_write(path, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    return len(rows)


def write_parquet(path: Path, rows: Sequence[dict[str, Any]]) -> int:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise RuntimeError('parquet export needs pyarrow: pip install "maestro-agent[train]"') from exc
    table = pa.Table.from_pylist(list(rows))
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)
    return table.num_rows


def load_export(out_dir: str | Path, name: str = "sft") -> Any:
    """One exported format as a ``datasets.Dataset``, image paths made absolute (so any working folder works)."""
    from datasets import load_dataset

    root = Path(out_dir).resolve()
    path = root / f"{FILE_STEMS.get(name, name)}.jsonl"
    data = load_dataset("json", data_files=str(path), split="train")

    def absolute(row: dict[str, Any]) -> dict[str, Any]:
        if "images" in row and row["images"] and isinstance(row["images"][0], str):
            row["images"] = [str(root / p) for p in row["images"]]
        if isinstance(row.get("image"), str):
            row["image"] = str(root / row["image"])
        return row

    return data.map(absolute)
