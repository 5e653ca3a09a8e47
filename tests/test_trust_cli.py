"""``maestro eval`` reports how well confidences predict correctness, and ``maestro calibrate`` refits from that
evaluation folder: real CLI processes on a slice of the BlindTest dev set, a real SQLite data directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.config import Settings
from agents.runtime import Maestro

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
BLINDTEST = REPO.parent / "shared" / "datasets" / "blindtest-dev" / "items.jsonl"


def maestro(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MAESTRO_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "ui.cli", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=900)


@pytest.mark.skipif(not BLINDTEST.is_file(), reason="the BlindTest dev set is not here")
def test_eval_reports_ece_and_calibrate_refits_from_its_folder(tmp_path: Path) -> None:
    home, out = tmp_path / "home", tmp_path / "eval"
    done = maestro("eval", str(BLINDTEST), "--out", str(out), "--limit", "40", home=home)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    trust = summary["trust"]
    assert 0.0 <= trust["ece"] <= 1.0 and trust["calibration"]  # the shipped calibration scored every answer
    assert [r["threshold"] for r in trust["risk_coverage"]][:2] == [0.0, 0.5]
    assert (out / "reliability.png").stat().st_size > 1000 and (out / "risk_coverage.png").is_file()
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert all(r["evidence"] and r["candidate_correct"] is not None for r in rows if r["candidate"])
    assert "ECE" in done.stdout
    chance = trust["ece_by_chance"]  # what a perfectly calibrated P would show on these 40: the noise to judge by
    assert 0.0 <= chance["mean"] <= chance["p95"] <= 1.0 and "chance alone on this many" in done.stdout

    fitted = maestro("calibrate", str(out), home=home)
    assert fitted.returncode == 0, fitted.stderr
    assert "P bin" in fitted.stdout and "P >=" in fitted.stdout  # the reliability and risk-coverage tables
    assert "blindtest-dev tuning" in fitted.stdout and "blindtest-dev validation" in fitted.stdout
    assert (home / "calibration-plots" / "blindtest-dev_reliability.png").is_file()
    written = json.loads((home / "calibration.json").read_text())
    assert written["meta"]["origins"] == ["blindtest-dev"]
    # From now on the data directory's calibration is the one answering uses.
    app = Maestro.open(Settings.resolve(data_dir=home))
    assert app.registry.calibration.version == written["version"]


def test_calibrate_without_input_or_with_a_wrong_folder_is_one_line_and_exit_2(tmp_path: Path) -> None:
    nothing = maestro("calibrate", home=tmp_path / "home")
    assert nothing.returncode == 2 and "evaluation folders" in nothing.stderr
    assert "Traceback" not in nothing.stderr
    wrong = maestro("calibrate", str(tmp_path), home=tmp_path / "home")
    assert wrong.returncode == 2 and "not an evaluation folder" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1


def test_rated_runs_are_labelled_examples_for_calibrate_from_ratings(tmp_path: Path) -> None:
    from PIL import Image, ImageDraw, ImageFont

    from agents.trust.labels import from_ratings

    image = Image.new("RGB", (620, 200), "white")
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", 60)
    ImageDraw.Draw(image).text((30, 60), "NO PARKING", fill="black", font=font)
    home = tmp_path / "home"
    app = Maestro.open(Settings.resolve(data_dir=home))
    first, second = (app.ask(image, "What is written on the sign?") for _ in range(2))
    assert first.trust["candidate"] == second.trust["candidate"] == "NO PARKING"  # kept, answered or withheld
    # A rater's verdict labels the answer; for a withheld candidate, the corrected answer does.
    app.store.add_rating(first.id, rater="ann", verdict="correct", corrected_answer="NO PARKING")
    app.store.add_rating(second.id, rater="ann", verdict="incorrect", corrected_answer="NO STOPPING")
    labels = {e.item: e.correct for e in from_ratings(app.store)}
    assert labels == {first.id: True, second.id: False}
    assert all(e.origin == "ratings" and e.split == "tuning" for e in from_ratings(app.store))

    fitted = maestro("calibrate", "--from-ratings", home=home)
    assert fitted.returncode == 0, fitted.stderr
    assert "ratings tuning: 2 items" in fitted.stdout and (home / "calibration.json").is_file()
