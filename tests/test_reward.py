"""R = r_ans + r_fmt on real stored runs (valid and broken, rated every way) and over an export's verl rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.evaluation.reward import ground_truth_for, run_reward, stored_trajectory
from agents.export.training_data import export
from agents.policies.base import ScriptedPolicy
from agents.runtime import Maestro
from tests.calibrations import trust_source
from training.maestro_reward import compute_score

FIXTURES = Path(__file__).parent / "fixtures"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
SEARCH = "<think>Echo the word.</think>\n<search> Tools@@Echo: repeat seven </search>"


@pytest.fixture
def app(tmp_path: Path) -> Maestro:
    # The scripted orchestrator reads the answer off the Echo skill's words, which no tool checks: a data directory
    # where such answers have a rated record lets them end ``done``, as rating them would (docs/trust.md).
    trust_source(tmp_path / "home", ("orchestrator", "unverifiable"), ("tools", "verified"))
    return Maestro.open(Settings.resolve(data_dir=tmp_path / "home", registry_path=FIXTURES / "registry_echo.yaml"),
                        policy=ScriptedPolicy([]))


@pytest.fixture
def picture() -> Image.Image:
    image = Image.new("RGB", (80, 40), "white")
    ImageDraw.Draw(image).text((4, 8), "seven", fill="black", font=ImageFont.truetype(FONT, 18))
    return image


def stored(app: Maestro, picture: Image.Image, turns: list[str], **kwargs: Any) -> Any:
    result = app.ask(picture, "Which number is written?", policy=ScriptedPolicy(turns), **kwargs)
    return app.store.get_run(result.id)


def rate(app: Maestro, record: Any, verdict: str, corrected: str | None = None) -> Any:
    app.store.add_rating(record.id, rater="tester", verdict=verdict, corrected_answer=corrected)
    return app.store.get_run(record.id)


def reward_of(app: Maestro, record: Any) -> Any:
    return run_reward(record, app.registry.model_names, app.registry.skill_names)


def test_a_valid_run_rated_correct_earns_one(app: Maestro, picture: Image.Image) -> None:
    record = rate(app, stored(app, picture, [SEARCH, "<think>It says seven.</think>\n<answer>7</answer>"]),
                  "correct")
    reward = reward_of(app, record)
    assert (reward.r_ans, reward.r_fmt, reward.total) == (1.0, 0.0, 1.0)
    assert reward.answer == "7" and reward.ground_truth == "7" and reward.violations == []
    assert stored_trajectory(record)[1] == "<information>80x40 repeat seven</information>"


def test_a_valid_run_rated_incorrect_earns_nothing(app: Maestro, picture: Image.Image) -> None:
    record = rate(app, stored(app, picture, [SEARCH, "<think>Six.</think>\n<answer>6</answer>"]), "incorrect")
    assert reward_of(app, record) is None  # wrong, and nobody said what is right: no ground truth
    # Even when the dataset item agrees with the answer, a person's "incorrect" decides.
    record = rate(app, stored(app, picture, [SEARCH, "<think>Six.</think>\n<answer>6</answer>"], expected="6"),
                  "incorrect")
    reward = reward_of(app, record)
    assert (reward.r_ans, reward.r_fmt, reward.ground_truth) == (0.0, 0.0, "6")


def test_a_correction_becomes_the_ground_truth(app: Maestro, picture: Image.Image) -> None:
    # The echo says six, so the answer 6 stands (an answer the tools contradict would be withheld, see trust).
    record = stored(app, picture, [SEARCH.replace("seven", "six"), "<think>Six.</think>\n<answer>6</answer>"])
    assert reward_of(app, record) is None  # unrated, no dataset item: nothing to judge by
    record = rate(app, record, "incorrect", corrected="7")
    assert ground_truth_for(record) == "7"
    assert reward_of(app, record).total == 0.0
    record = rate(app, record, "correct")  # a later verdict wins: the run's own answer is now the truth
    assert ground_truth_for(record) == "6" and reward_of(app, record).total == 1.0


def test_a_repaired_malformed_turn_costs_the_format_reward(app: Maestro, picture: Image.Image) -> None:
    record = stored(app, picture, ["<think>Two actions.</think><answer>7</answer><answer>8</answer>",
                                   "<think>Now one.</think><answer>7</answer>"])
    record = rate(app, record, "correct")
    reward = reward_of(app, record)
    assert reward.r_ans == 1.0 and reward.r_fmt == -1.0 and reward.total == 0.0
    assert "multiple_actions" in {v.code for v in reward.violations}


def test_an_unknown_expert_name_is_a_violation(app: Maestro, picture: Image.Image) -> None:
    record = stored(app, picture, ["<think>Ask.</think><search> Nobody@@Echo: repeat </search>",
                                   "<think>Fine.</think><answer>7</answer>"], expected="7")
    reward = reward_of(app, record)
    assert reward.ground_truth == "7" and reward.r_ans == 1.0 and reward.r_fmt == -1.0
    assert "unknown_model" in {v.code for v in reward.violations}


def test_a_run_that_never_answers_scores_minus_one(app: Maestro, picture: Image.Image) -> None:
    record = stored(app, picture, ["<think>Hmm.</think>"] * 5, expected="7")
    assert record.status == "failed"
    reward = reward_of(app, record)
    assert reward.answer is None and reward.total == -1.0
    assert "answer_count" in {v.code for v in reward.violations}


def test_the_verl_reward_hook_scores_rollouts_for_every_exported_prompt(app: Maestro, picture: Image.Image,
                                                                        tmp_path: Path) -> None:
    rate(app, stored(app, picture, [SEARCH, "<think>It says seven.</think>\n<answer>7</answer>"]), "correct")
    other = Image.new("RGB", (60, 60), "white")
    ImageDraw.Draw(other).text((4, 20), "yes", fill="black", font=ImageFont.truetype(FONT, 18))
    app.ask(other, "Is a word written?", policy=ScriptedPolicy(["<think>No.</think><answer>no</answer>"]),
            expected="yes")
    export(app.store, app.registry, tmp_path / "out", formats=["verl"])
    rows = pq.read_table(tmp_path / "out" / "verl_train.parquet").to_pylist()
    assert len(rows) == 2
    for row in rows:
        truth, extra = row["reward_model"]["ground_truth"], row["extra_info"]
        # What verl decodes from a rollout: policy turns, the inserted observation, chat-template role lines.
        good = (f"<think>Ask the echo.</think>\n<search> Tools@@Echo: repeat it </search><|im_end|>\n"
                f"<|im_start|>user\n<information>80x40 repeat it</information><|im_end|>\n"
                f"<|im_start|>assistant\n<think>Done.</think>\n<answer>{truth}</answer>")
        scored = compute_score(row["data_source"], good, truth, extra)
        assert (scored["score"], scored["r_ans"], scored["r_fmt"]) == (1.0, 1.0, 0.0), scored
        wrong = compute_score(row["data_source"], "<think>Guess.</think><answer>banana</answer>", truth, extra)
        assert wrong["score"] == 0.0
        unanswered = compute_score(row["data_source"], good.split("<information>")[0], truth, extra)
        assert unanswered["score"] == -1.0 and unanswered["violations"] >= 2
        forged = good.replace("Tools@@Echo", "Tools@@Nonexistent")
        assert compute_score(row["data_source"], forged, truth, extra)["r_fmt"] == -1.0
    assert {row["reward_model"]["ground_truth"] for row in rows} == {"7", "yes"}
