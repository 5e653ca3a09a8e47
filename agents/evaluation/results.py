"""An evaluation's ``results.jsonl`` that survives crashes: each row appended and flushed the moment its item ends.

``ResultsFile.start`` begins a fresh file; ``ResultsFile.resume`` keeps the rows an interrupted evaluation wrote
(dropping a torn last line, which is what a process killed mid-write leaves) and appends after them. ``append`` is
thread-safe and hands the row to the operating system before it returns, so a ``kill -9`` loses at most the items
that were still running (like the database, whose WAL is synced at checkpoints, not per commit: a killed process
is what this guards against; a power cut may lose the last rows, never tear the file's earlier ones). ``finish`` rewrites the file in dataset order, atomically. ``eval.json`` beside it says which
dataset the folder evaluates, so ``--resume`` refuses to mix two evaluations in one folder.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

RESULTS = "results.jsonl"
MANIFEST = "eval.json"


class ResumeError(ValueError):
    """The folder cannot be resumed (another dataset's evaluation); the message says what to do."""


class ResultsFile:
    """``DIR/results.jsonl`` of one evaluation (see the module docstring)."""

    def __init__(self, out_dir: Path) -> None:
        self.dir = Path(out_dir)
        self.path = self.dir / RESULTS
        self._lock = threading.Lock()
        self._handle: IO[str] | None = None
        self.dropped_lines = 0  # unreadable lines left out on resume (a torn last line, usually)

    def start(self, manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """Begin a fresh evaluation in the folder (an earlier ``results.jsonl`` is replaced); no rows are done."""
        self.dir.mkdir(parents=True, exist_ok=True)
        _atomic_write(self.dir / MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
        self._handle = self.path.open("w", encoding="utf-8")
        return {}

    def resume(self, manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The rows already written, by item id (the first row of an id wins); later rows are appended after them.

        A folder without results starts afresh. A folder of another dataset's evaluation raises ``ResumeError``."""
        if not self.path.is_file():
            return self.start(manifest)
        known = _read_manifest(self.dir / MANIFEST)
        if known is not None and known.get("dataset") != manifest.get("dataset"):
            raise ResumeError(f"{self.dir} holds an evaluation of {known.get('dataset')}, not of "
                              f"{manifest.get('dataset')}; resume it with that dataset or use another --out folder")
        rows, keep_bytes, ends_line = self._readable_rows()
        with self.path.open("r+b") as raw:  # cut a torn tail so appended rows start on a line of their own
            raw.truncate(keep_bytes)
            if not ends_line:
                raw.seek(keep_bytes)
                raw.write(b"\n")
        if known is None:
            _atomic_write(self.dir / MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
        self._handle = self.path.open("a", encoding="utf-8")
        return rows

    def _readable_rows(self) -> tuple[dict[str, dict[str, Any]], int, bool]:
        """Complete, parseable rows by id; the byte length of the file up to the end of its last good row; and
        whether that row ends with a newline (a row cut just before its newline is whole, and is kept)."""
        rows: dict[str, dict[str, Any]] = {}
        keep, offset, ends_line = 0, 0, True
        for line in self.path.read_bytes().splitlines(keepends=True):
            offset += len(line)
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):  # a torn last line (or a damaged one)
                self.dropped_lines += 1
                continue
            if not (isinstance(row, dict) and isinstance(row.get("id"), str) and "status" in row):
                self.dropped_lines += 1
                continue
            rows.setdefault(row["id"], row)
            keep, ends_line = offset, line.endswith(b"\n")
        return rows, keep, ends_line

    def append(self, row: dict[str, Any]) -> None:
        """Write one finished item's row; it survives the process being killed once this returns."""
        line = json.dumps(row, ensure_ascii=False) + "\n"
        with self._lock:
            if self._handle is None:
                raise RuntimeError("results file not opened: call start() or resume() first")
            self._handle.write(line)
            self._handle.flush()

    def finish(self, rows: list[dict[str, Any]]) -> None:
        """Close the append handle and write ``rows`` (dataset order) in place of the file, atomically."""
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None
        _atomic_write(self.path, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None


def read_rows(out_dir: str | Path) -> list[dict[str, Any]]:
    """The rows of an evaluation folder's ``results.jsonl`` (unreadable lines skipped); ``FileNotFoundError`` when
    the folder has none."""
    path = Path(out_dir) / RESULTS
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no results.jsonl (is {out_dir} an evaluation folder?)")
    rows = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            row = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            rows.append(row)
    return rows


def _read_manifest(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
