"""The migrations ship inside the package: a wheel built from the project migrates a fresh database on its own."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_installed_wheel_runs_its_migrations(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, project / name)
    # Only storage/ is copied: building in a scratch copy keeps build/ and egg-info out of the shared checkout.
    shutil.copytree(REPO / "storage", project / "storage", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path / "dist"), str(project)], check=True, capture_output=True, timeout=300)
    wheel = next((tmp_path / "dist").glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert {"storage/migrations/env.py", "storage/migrations/script.py.mako",
            "storage/migrations/versions/0001_initial_schema.py"} <= set(names)

    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    code = ("import sys, storage; assert storage.__file__.startswith(sys.argv[2]), storage.__file__;"
            "storage.open_store(sys.argv[1]).close()")
    home = tmp_path / "home"
    subprocess.run([sys.executable, "-P", "-c", code, str(home), str(site)], check=True, cwd=elsewhere,
                   env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}, capture_output=True, timeout=120)
    with sqlite3.connect(home / "maestro.db") as conn:
        newest = sorted(n for n in names if n.startswith("storage/migrations/versions/0") and n.endswith(".py"))[-1]
        head = newest.rsplit("/", 1)[1].removesuffix(".py")
        revision = conn.execute("select version_num from alembic_version").fetchone()[0]
        assert head.startswith(revision)  # upgraded to the newest migration the wheel ships
        assert conn.execute("select count(*) from runs").fetchone() == (0,)
