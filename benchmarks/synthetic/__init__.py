"""Synthetic benchmark generators with known answers, one module per kind of task.

Each module has ``generate(out_dir: Path, n: int, seed: int = 0) -> list[dict]`` that writes PNGs into
``out_dir/images/`` and returns items in the evaluation format of ``blindtest-dev/items.jsonl``: ``{"id", "image",
"question", "answer", "category"}`` (answers as strings), plus generator-specific ground truth (``meta``, ...) that
benchmarks use to check tools directly. ``write_items`` stores a list of items as ``items.jsonl`` beside the images.
"""

from __future__ import annotations

import json
from pathlib import Path

#: DejaVu fonts shipped by Debian's fonts-dejavu-core / fonts-dejavu-extra.
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")


def write_items(out_dir: Path, items: list[dict]) -> Path:
    """Write ``items`` to ``out_dir/items.jsonl`` (one JSON object a line) and return the path."""
    path = Path(out_dir) / "items.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for item in items:
            handle.write(json.dumps(item, ensure_ascii=False) + "\n")
    return path
