"""`maestro eval --baseline`: an evaluation compared with itself is all unchanged (also when re-evaluated from its
stored runs with cached tools); after a registry edit that breaks one skill, exactly that skill's items are listed
as regressed, with both run ids; the comparison's right-vs-wrong items export as DPO pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents.config import Settings
from agents.evaluation.compare import classify, compare_rows
from agents.evaluation.harness import evaluate
from agents.export.training_data import export
from agents.runtime import Maestro
from tests.test_eval_resume import small_dataset
from tests.test_rerun import broken_registry
from ui.cli import app


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory, blindtest_dir: Path) -> tuple[Path, Path, Path]:
    """A data directory, a BlindTest dataset of 10 items and its first evaluation's folder."""
    root = tmp_path_factory.mktemp("compare")
    dataset = root / "set" / "items.jsonl"
    dataset.parent.mkdir()
    small_dataset(blindtest_dir, dataset, 10)
    maestro = Maestro.open(Settings.resolve(data_dir=root / "home"))
    evaluate(maestro, dataset, root / "first", progress=False)
    return root / "home", dataset, root / "first"


def rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_an_evaluation_against_itself_is_all_unchanged(first: tuple[Path, Path, Path], tmp_path: Path) -> None:
    home, dataset, baseline = first
    summary = evaluate(Maestro.open(Settings.resolve(data_dir=home)), dataset, tmp_path / "again",
                       baseline=baseline, progress=False)
    comparison = json.loads((tmp_path / "again" / "comparison.json").read_text())
    assert comparison["counts"] == {"improved": 0, "regressed": 0, "unchanged": 10, "changed": 0}
    assert summary["comparison"]["unchanged"] == 10 and comparison["regressed"] == []


@pytest.mark.slow
def test_re_evaluating_stored_runs_with_cached_tools_reuses_everything(first: tuple[Path, Path, Path],
                                                                      tmp_path: Path) -> None:
    home, dataset, baseline = first
    maestro = Maestro.open(Settings.resolve(data_dir=home))
    summary = evaluate(maestro, dataset, tmp_path / "cached", from_runs=baseline, tools="cached", progress=False)
    assert summary["from_runs"]["reran"] == 10 and summary["from_runs"]["ran_afresh"] == 0
    comparison = json.loads((tmp_path / "cached" / "comparison.json").read_text())  # against --from-runs
    assert comparison["counts"]["unchanged"] == 10
    new, old = rows(tmp_path / "cached"), {row["id"]: row for row in rows(baseline)}
    assert all(row["tool_calls"] > 0 and row["reused_tool_calls"] == row["tool_calls"] for row in new)
    for row in new:  # each one a rerun of the stored run of its item
        assert maestro.store.get_run(row["run_id"]).parent_run_id == old[row["id"]]["run_id"]


@pytest.mark.slow
def test_a_registry_that_breaks_one_skill_lists_its_items_as_regressed(first: tuple[Path, Path, Path],
                                                                      tmp_path: Path) -> None:
    home, dataset, baseline = first
    before = rows(baseline)
    diagram = {row["id"] for row in before if "Tools@@Diagram-Reasoning" in row["pairs"] and row["correct"]}
    assert 0 < len(diagram) < len(before), "the set should mix Diagram-Reasoning items with others"
    broken = Maestro.open(Settings.resolve(data_dir=home, registry_path=broken_registry(tmp_path)))
    evaluate(broken, dataset, tmp_path / "broken", baseline=baseline, progress=False)
    comparison = json.loads((tmp_path / "broken" / "comparison.json").read_text())
    regressed = {item["id"]: item for item in comparison["regressed"]}
    assert set(regressed) == diagram
    assert comparison["counts"]["unchanged"] == len(before) - len(diagram)
    old = {row["id"]: row["run_id"] for row in before}
    new = {row["id"]: row["run_id"] for row in rows(tmp_path / "broken")}
    for item_id, item in regressed.items():
        assert (item["before"]["run_id"], item["after"]["run_id"]) == (old[item_id], new[item_id])
        # {7} is wrong where a count is asked, and no answer at all where a (rows, columns) pair is.
        assert item["before"]["outcome"] == "right" and item["after"]["outcome"] in ("wrong", "no_answer")
    wrong = {item_id for item_id, item in regressed.items() if item["after"]["outcome"] == "wrong"}
    assert wrong and all(regressed[i]["after"]["answer"] == "{7}" for i in wrong)

    manifest = export(broken.store, broken.registry, tmp_path / "export", formats=["dpo"],
                      comparison=tmp_path / "broken")
    pairs = [json.loads(line) for line in (tmp_path / "export" / "dpo.jsonl").read_text().splitlines()]
    assert {(p["chosen_run_id"], p["rejected_run_id"]) for p in pairs} == {(old[i], new[i]) for i in wrong}
    assert {p["pair_kind"] for p in pairs} == {"comparison_right_vs_wrong"}
    assert manifest.counts["dpo.jsonl"] == len(wrong)


@pytest.mark.slow
def test_cli_prints_the_comparison_table(first: tuple[Path, Path, Path], tmp_path: Path) -> None:
    home, dataset, baseline = first
    result = CliRunner().invoke(app, ["eval", str(dataset), "--out", str(tmp_path / "cli"), "--from-runs",
                                      str(baseline), "--tools", "cached", "--data-dir", str(home),
                                      "--registry", str(broken_registry(tmp_path))])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "0 improved" in said and "regressed" in said and "(right)" in said and "(wrong)" in said
    assert "comparison.json" in result.output.replace("\n", "")


def test_outcomes_rank_trust_before_coverage() -> None:
    right = {"status": "done", "answer": "3", "correct": True}
    wrong = {"status": "done", "answer": "4", "correct": False}
    other_wrong = {"status": "done", "answer": "5", "correct": False}
    abstained = {"status": "abstained", "answer": None, "correct": False}
    failed = {"status": "failed", "answer": None, "correct": False}
    assert classify(wrong, abstained) == "improved"  # no answer beats a confident wrong one
    assert classify(right, abstained) == "regressed" and classify(abstained, wrong) == "regressed"
    assert classify(wrong, other_wrong) == "changed" and classify(abstained, failed) == "changed"
    assert classify(right, dict(right)) == "unchanged"
    compared = compare_rows([{"id": "a", **right}, {"id": "gone", **right}], [{"id": "a", **right},
                                                                               {"id": "new", **wrong}])
    assert compared["only_in_baseline"] == ["gone"] and compared["only_in_new"] == ["new"]
