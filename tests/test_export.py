"""Training-data export from a real database of rated runs: files, row shapes, verl schema, images, manifest."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.export.training_data import FORMATS, export, export_app, load_export
from agents.policies.base import ScriptedPolicy
from agents.protocol import validate_trajectory
from agents.runtime import Maestro
from tests.calibrations import trust_source

FIXTURES = Path(__file__).parent / "fixtures"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

SEARCH_HELLO = "<think>Echo the word.</think>\n<search> Tools@@Echo: repeat hello </search>"
ANSWER_HELLO = "<think>The echo said hello.</think>\n<answer>hello</answer>"


def card(text: str, size: tuple[int, int] = (96, 64)) -> Image.Image:
    image = Image.new("RGB", size, (250, 250, 245))
    ImageDraw.Draw(image).text((6, 18), text, fill=(10, 10, 10), font=ImageFont.truetype(FONT, 20))
    return image


def open_app(home: Path) -> Maestro:
    # The scripted runs answer with what the Echo skill says, or with words of their own that no tool checks: give
    # such answers a rated record, as rating them would, so they end ``done`` (docs/trust.md).
    if not (home / "calibration.json").exists():
        trust_source(home, ("orchestrator", "unverifiable"), ("tools", "verified"))
    return Maestro.open(Settings.resolve(data_dir=home, registry_path=FIXTURES / "registry_echo.yaml"),
                        policy=ScriptedPolicy([]))


def ask(app: Maestro, image: Image.Image, question: str, turns: list[str], **kwargs: Any) -> str:
    result = app.ask(image, question, policy=ScriptedPolicy(turns), **kwargs)
    assert result.id is not None
    return result.id


@pytest.fixture
def rated(tmp_path: Path) -> dict[str, Any]:
    """A database with every kind of rated run the export distinguishes."""
    app = open_app(tmp_path / "home")
    hello, other = card("hello"), card("other")
    ids = {
        "good": ask(app, hello, "What word is shown?", [SEARCH_HELLO, ANSWER_HELLO]),
        "bad": ask(app, hello, "What word is shown?", ["<think>Guess.</think>\n<answer>goodbye</answer>"]),
        "fixed": ask(app, other, "Read the card.", ["<think>Echo.</think>\n<search> Tools@@Echo: forge </search>",
                                                    "<think>It says hacked.</think>\n<answer>hacked</answer>"]),
        # A malformed first turn (two actions), repaired: rated correct but never a positive example.
        "messy": ask(app, other, "Is it a card?", ["<think>x</think><answer>yes</answer><answer>no</answer>",
                                                   "<think>Yes.</think><answer>yes</answer>"]),
        "unrated": ask(app, hello, "How wide is it?", [SEARCH_HELLO, ANSWER_HELLO]),
        "item": ask(app, other, "Count the letters.", ["<think>Five.</think><answer>5</answer>"],
                    dataset="letters", item_id="q1", expected="5"),
    }
    store = app.store
    store.add_rating(ids["good"], rater="ann", verdict="correct")
    store.add_rating(ids["bad"], rater="ann", verdict="incorrect")
    store.add_rating(ids["fixed"], rater="ann", verdict="incorrect", corrected_answer="other")
    store.add_rating(ids["messy"], rater="ann", verdict="correct")
    return {"app": app, "ids": ids, "out": tmp_path / "export"}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_every_format_is_written_with_counts_that_match_the_files(rated: dict[str, Any]) -> None:
    app, out = rated["app"], rated["out"]
    manifest = export(app.store, app.registry, out)
    on_disk = json.loads((out / "manifest.json").read_text())
    assert on_disk["counts"] == manifest.counts and manifest.formats == list(FORMATS)
    for name, count in manifest.counts.items():
        path = out / name
        rows = read_jsonl(path) if name.endswith(".jsonl") else pq.read_table(path).to_pylist()
        assert len(rows) == count, name
    assert manifest.counts["sft.jsonl"] == 2  # the correct run and the corrected one; not the messy one
    assert manifest.counts["kto.jsonl"] == 4  # good + bad + corrected (good) + its original (bad)
    assert manifest.counts["dpo.jsonl"] == 2  # correct vs incorrect, corrected vs its original
    assert manifest.runs_considered == 6 and manifest.skipped["invalid_protocol_not_used_as_positive"] == 1
    assert manifest.registry_hash == app.registry.snapshot_hash()
    assert manifest.skill_versions["Echo"] == "1" and "git" not in json.dumps(on_disk).lower()
    assert on_disk["run_registry_hashes"] == [app.registry.snapshot_hash()]


def test_sft_rows_follow_the_policy_conversation_and_mask_observations(rated: dict[str, Any]) -> None:
    app, out, ids = rated["app"], rated["out"], rated["ids"]
    export(app.store, app.registry, out, formats=["sft"])
    rows = {row["run_id"]: row for row in read_jsonl(out / "sft.jsonl")}
    assert set(rows) == {ids["good"], ids["fixed"]}
    good = rows[ids["good"]]["messages"]
    assert [(m["role"], m["train"]) for m in good] == [
        ("system", False), ("user", False), ("assistant", True), ("user", False), ("assistant", True)]
    assert good[0]["content"][0]["text"].startswith("You are Maestro")
    assert [p["type"] for p in good[1]["content"]] == ["image", "text"]
    assert good[1]["content"][1]["text"] == "Question: What word is shown?"
    assert good[2]["content"][0]["text"] == SEARCH_HELLO
    assert good[3]["content"][0]["text"] == "<information>96x64 repeat hello</information>"
    fixed = rows[ids["fixed"]]["messages"]
    final = fixed[-1]["content"][0]["text"]
    # The correction; the reasoning that argued for the replaced answer ("hacked") is not kept beside it.
    assert final == "<think>Weighing the evidence above, the answer is other.</think>\n<answer>other</answer>"
    observation = fixed[3]["content"][0]["text"]
    assert "hacked" in observation and "<answer>" not in observation  # forged tags stay neutralised
    turns = [m["content"][0]["text"] for m in fixed[2:]]
    assert validate_trajectory(turns, app.registry.model_names, app.registry.skill_names) == []


def test_preference_rows_pair_the_same_image_and_question(rated: dict[str, Any]) -> None:
    app, out, ids = rated["app"], rated["out"], rated["ids"]
    export(app.store, app.registry, out, formats=["dpo", "kto"])
    pairs = {row["pair_kind"]: row for row in read_jsonl(out / "dpo.jsonl")}
    across = pairs["correct_vs_incorrect"]
    assert (across["chosen_run_id"], across["rejected_run_id"]) == (ids["good"], ids["bad"])
    assert across["chosen"][-1]["content"][0]["text"] == ANSWER_HELLO
    assert across["rejected"][-1]["content"][0]["text"].endswith("<answer>goodbye</answer>")
    assert across["prompt"][1]["content"][1]["text"] == "Question: What word is shown?"
    itself = pairs["corrected_vs_original"]
    assert itself["chosen_run_id"] == itself["rejected_run_id"] == ids["fixed"]
    assert itself["chosen"][-1]["content"][0]["text"].endswith("<answer>other</answer>")
    assert itself["rejected"][-1]["content"][0]["text"].endswith("<answer>hacked</answer>")
    kto = {(row["run_id"], row["label"]) for row in read_jsonl(out / "kto.jsonl")}
    assert kto == {(ids["good"], True), (ids["bad"], False), (ids["fixed"], True), (ids["fixed"], False)}


def _check_verl_row(row: dict[str, Any], out: Path) -> None:
    """verl's documented RL parquet layout (data_source, prompt, images, ability, reward_model, extra_info)."""
    assert isinstance(row["data_source"], str) and row["data_source"]
    assert isinstance(row["ability"], str) and row["ability"]
    prompt = row["prompt"]
    assert isinstance(prompt, list) and [m["role"] for m in prompt] == ["system", "user"]
    assert all(isinstance(m["content"], str) for m in prompt)
    assert prompt[1]["content"].count("<image>") == len(row["images"]) == 1
    assert (out / row["images"][0]["image"]).is_file()
    assert row["reward_model"]["style"] == "rule" and isinstance(row["reward_model"]["ground_truth"], str)
    extra = row["extra_info"]
    assert isinstance(extra["index"], int) and extra["split"] == "train"
    assert set(json.loads(extra["registry_names"])) == {"models", "skills"}


def test_verl_rows_validate_against_verls_layout_and_images_are_content_addressed(rated: dict[str, Any]) -> None:
    app, out, ids = rated["app"], rated["out"], rated["ids"]
    manifest = export(app.store, app.registry, out, formats=["verl", "grpo"], dataset=None)
    rows = pq.read_table(out / "verl_train.parquet").to_pylist()
    for row in rows:
        _check_verl_row(row, out)
    truths = {row["extra_info"]["question"]: row["reward_model"]["ground_truth"] for row in rows}
    # Ground truth: a confirmed answer, a correction, a dataset item's answer; none for wrong-without-correction.
    assert truths == {"What word is shown?": "hello", "Read the card.": "other", "Is it a card?": "Yes",
                      "Count the letters.": "5"}
    assert [row["extra_info"]["index"] for row in rows] == list(range(len(rows)))
    by_question = {row["extra_info"]["question"]: row for row in rows}
    assert by_question["What word is shown?"]["extra_info"]["run_ids"] == [ids["good"]]  # the wrong run has no truth to add
    files = sorted((out / "images").iterdir())
    assert len(files) == manifest.images == 2  # two distinct pictures behind six runs
    for path in files:
        assert re.fullmatch(r"[0-9a-f]{64}\.png", path.name)
        assert hashlib.sha256(path.read_bytes()).hexdigest() == path.stem
    grpo = read_jsonl(out / "grpo.jsonl")
    assert [g["ground_truth"] for g in grpo] == [r["reward_model"]["ground_truth"] for r in rows]
    assert all((out / g["image"]).is_file() for g in grpo)


def test_filters_narrow_the_export(rated: dict[str, Any], tmp_path: Path) -> None:
    app = rated["app"]
    only_correct = export(app.store, app.registry, tmp_path / "a", formats=["sft", "dpo"], rating="correct")
    assert only_correct.runs_considered == 2 and only_correct.counts["dpo.jsonl"] == 0
    assert not (tmp_path / "a" / "dpo.parquet").exists()
    future = export(app.store, app.registry, tmp_path / "b", formats=["sft"], since="2999-01-01")
    assert future.runs_considered == 0 and future.counts == {"sft.jsonl": 0}
    today = export(app.store, app.registry, tmp_path / "c", formats=["sft"], until="2999-12-31")
    assert today.runs_considered == 6
    items = export(app.store, app.registry, tmp_path / "d", formats=["verl"], dataset="letters")
    assert items.runs_considered == 1 and items.counts["verl_train.parquet"] == 1
    assert items.filters["dataset"] == "letters"
    with pytest.raises(ValueError, match="unknown export format"):
        export(app.store, app.registry, tmp_path / "e", formats=["csv"])
    with pytest.raises(ValueError, match="ISO"):
        export(app.store, app.registry, tmp_path / "e", since="last tuesday")


def test_dataset_items_without_runs_become_rl_prompts(rated: dict[str, Any], tmp_path: Path) -> None:
    from storage import DatasetItem

    app = rated["app"]
    ref = app.store.images.put_image(card("seven"))
    app.store.save_dataset("letters", [DatasetItem("q1", "Count the letters.", "5"),
                                       DatasetItem("q2", "What number?", "7", image_id=ref.id, category="OCR")])
    manifest = export(app.store, app.registry, tmp_path / "x", formats=["verl"], dataset="letters")
    rows = pq.read_table(tmp_path / "x" / "verl_train.parquet").to_pylist()
    assert [(r["extra_info"]["item_id"], r["reward_model"]["ground_truth"], r["ability"]) for r in rows] == [
        ("q1", "5", "visual_reasoning"), ("q2", "7", "OCR")]
    assert manifest.skipped["dataset_item_without_image_or_answer"] == 1  # q1's item has no image of its own


def test_export_app_and_load_export_round_trip(rated: dict[str, Any]) -> None:
    app = rated["app"]
    manifest = export_app(app, formats=["sft"])
    out = Path(manifest.out_dir)
    assert out.parent == app.settings.data_dir / "exports" and "sft.jsonl: 2 rows" in manifest.summary()
    data = load_export(out, "sft")
    assert len(data) == 2 and all(Path(row["images"][0]).is_absolute() and Path(row["images"][0]).is_file()
                                  for row in data)
    assert data[0]["messages"][1]["content"][0]["type"] == "image"


@pytest.mark.slow
def test_the_export_command_writes_the_same_files(rated: dict[str, Any], tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    app = rated["app"]
    repo = Path(__file__).resolve().parent.parent
    env = {**os.environ, "MAESTRO_HOME": str(app.settings.data_dir),
           "MAESTRO_REGISTRY": str(FIXTURES / "registry_echo.yaml")}
    out = tmp_path / "cli"
    command = [sys.executable, "-m", "ui.cli", "export", "--out", str(out), "--format", "sft", "--format", "verl",
               "--since", "2000-01-01", "--json"]
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    manifest = json.loads(done.stdout)
    assert manifest["formats"] == ["sft", "verl"] and manifest["counts"]["sft.jsonl"] == 2
    assert manifest == json.loads((out / "manifest.json").read_text())
    bad = subprocess.run([*command[:6], "--format", "csv"], cwd=repo, env=env, capture_output=True,
                         text=True, timeout=300)
    assert bad.returncode == 2 and bad.stderr.strip().startswith("error: unknown export format")
