"""Reproducible evaluations: options shuffled by a seed (the expected letter moves with them), K repetitions with
their spread, and the record of what produced them (in each run and in the summary)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from agents.provenance.options import shuffle_options
from agents.provenance.repeats import spread

REPO = Path(__file__).resolve().parent.parent
QUESTION = ("What colour is the circle?\nA. red\nB. blue\nC. green\nD. yellow\n"
            "Answer with the option's letter from the given choices directly.")


def test_shuffling_moves_the_expected_letter_with_its_option() -> None:
    orders = set()
    for item in ("a", "b", "c", "d", "e", "f"):
        done = shuffle_options(QUESTION, "B", seed=3, item_id=item)
        assert done.order is not None and sorted(done.order) == ["A", "B", "C", "D"]
        lines = dict(line.split(". ", 1) for line in done.question.splitlines()[1:5])
        assert lines[done.answer] == "blue"  # the expected letter still names the right option
        assert done.question.splitlines()[0] == "What colour is the circle?"
        assert done.question.endswith("given choices directly.")
        assert shuffle_options(QUESTION, "B", seed=3, item_id=item) == done  # same seed and item: same order
        orders.add(tuple(done.order))
    assert len(orders) > 1  # items get different orders


def test_items_that_cannot_be_shuffled_are_left_and_say_why() -> None:
    inline = shuffle_options("Which? (A) one (B) two", "A", seed=1, item_id="x")
    assert inline.order is None and inline.question == "Which? (A) one (B) two" and "one per line" in inline.note
    wrong = shuffle_options(QUESTION, "blue", seed=1, item_id="x")
    assert wrong.order is None and wrong.answer == "blue" and "not one of the option letters" in wrong.note
    assert shuffle_options("How many?", "3", seed=1, item_id="x").order is None


def test_spread() -> None:
    assert spread([0.5, 0.7, 0.6]) == {"values": [0.5, 0.7, 0.6], "mean": 0.6, "std": 0.1, "min": 0.5, "max": 0.7}
    assert spread([None, 0.5])["mean"] == 0.5 and spread([0.5])["std"] == 0.0
    assert spread([None])["mean"] is None


@pytest.mark.slow
def test_eval_shuffles_repeats_and_records(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    (folder / "images").mkdir(parents=True)
    colours = [(220, 30, 30), (30, 60, 220), (30, 160, 60)]  # red, blue, green: options A, B, C of QUESTION
    lines = []
    for i, rgb in enumerate(colours):
        image = Image.new("RGB", (300, 200), "white")
        ImageDraw.Draw(image).ellipse((100, 50, 200, 150), fill=rgb)
        image.save(folder / "images" / f"{i}.png")
        lines.append(json.dumps({"id": f"c{i}", "image": f"images/{i}.png", "question": QUESTION,
                                 "answer": "ABC"[i], "match": "choice", "category": "colour"}))
    (folder / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {**os.environ, "MAESTRO_HOME": str(tmp_path / "home")}
    env.pop("MAESTRO_DB", None)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "ui.cli", "eval", str(folder / "items.jsonl"), "--out", str(out),
                           "--shuffle-options", "7", "--repeat", "2"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["repeat"] == 2 and len(summary["spread"]["accuracy"]["values"]) == 2
    assert [r["shuffle_options"] for r in summary["repeats"]] == [7, 8]
    assert summary["reproducibility"]["harness"]["shuffle_options"] == 7
    for r, seed in ((1, 7), (2, 8)):
        rows = [json.loads(line) for line in (out / f"repeat-{r}" / "results.jsonl").read_text().splitlines()]
        for row in rows:
            again = shuffle_options(QUESTION, "ABC"[int(row["id"][1])], seed=seed, item_id=row["id"])
            assert row["option_order"] == again.order and row["expected"] == again.answer
            assert row["question"] == again.question
    # The run stored for an item records the option order it was asked with.
    row = json.loads((out / "repeat-1" / "results.jsonl").read_text().splitlines()[0])
    shown = subprocess.run([sys.executable, "-m", "ui.cli", "runs", "show", row["run_id"], "--json"], cwd=REPO,
                           env=env, capture_output=True, text=True, timeout=300)
    record = json.loads(shown.stdout)["config"]["reproducibility"]
    assert record["option_order"] == row["option_order"] and record["shuffle_options"] == 7
