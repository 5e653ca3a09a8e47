"""``training`` is an installed package: a wheel built from the project carries it, and its collator imports from
any working folder (TRL scripts run from their own)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_training_ships_in_the_wheel_and_imports_outside_the_repository(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, project / name)
    # A scratch copy holding only training/: build/ and egg-info stay out of the checkout.
    shutil.copytree(REPO / "training", project / "training", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path / "dist"), str(project)], check=True, capture_output=True, timeout=300)
    wheel = next((tmp_path / "dist").glob("*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"training/__init__.py", "training/sft_collator.py", "training/verl_grpo.yaml",
            "training/launch_verl_grpo.sh"} <= names

    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    code = ("import sys, training.sft_collator as c; assert c.__file__.startswith(sys.argv[1]), c.__file__; "
            "print(c.IGNORE_INDEX)")
    # -P: the working folder is not put on sys.path, so only the installed copy can be found.
    done = subprocess.run([sys.executable, "-P", "-c", code, str(site)], cwd=elsewhere, capture_output=True,
                          text=True, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "-100"
