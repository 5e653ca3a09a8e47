"""Shared fixtures: paths to the real benchmark items and a throwaway data directory per test."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BLINDTEST = REPO.parent / "shared" / "datasets" / "blindtest-dev"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh Maestro data directory (``MAESTRO_HOME``) for one test."""
    home = tmp_path / "maestro-home"
    monkeypatch.setenv("MAESTRO_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def blindtest_dir() -> Path:
    if not (BLINDTEST / "items.jsonl").exists():
        pytest.skip(f"BlindTest dev set not found at {BLINDTEST}")
    return BLINDTEST


SROIE = REPO.parent / "shared" / "datasets" / "sroie-dev"


@pytest.fixture(scope="session")
def sroie_dir() -> Path:
    if not (SROIE / "items.jsonl").exists():
        pytest.skip(f"SROIE receipts dev set not found at {SROIE}")
    return SROIE
