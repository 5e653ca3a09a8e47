"""DPO exports that train: corrected runs pair with their originals, the pairs are measured with the trainer's
processor (a tiny Qwen2-VL built in-process, nothing downloaded), pairs identical within ``--max-length`` tokens
are dropped and reported, and TRL's DPOTrainer with the settings of docs/training.md moves the loss off ln 2.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

pytest.importorskip("transformers")

from agents.config import Settings  # noqa: E402
from agents.export.formats import CORRECTED_THINK, final_turn_with  # noqa: E402
from agents.export.training_data import export, load_export  # noqa: E402
from agents.policies.base import ScriptedPolicy  # noqa: E402
from agents.runtime import Maestro  # noqa: E402
from tests.tiny_vlm import build_tiny_qwen2vl  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
RUNS = 4


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_qwen2vl(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def corrected_app(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    """Runs that answered 6N.1 where the number shown is 6N, each rated incorrect with the correction."""
    root = tmp_path_factory.mktemp("dpo")
    app = Maestro.open(Settings.resolve(data_dir=root / "home", registry_path=FIXTURES / "registry_echo.yaml"),
                       policy=ScriptedPolicy([]))
    for i in range(RUNS):
        turns = [f"<think>Read it.</think>\n<search> Tools@@Echo: repeat {60 + i} </search>",
                 f"<think>The echo settled it: {60 + i}.1.</think>\n<answer>{60 + i}.1</answer>"]
        run = app.ask(number_image(60 + i), f"What number is shown in picture {i}?", policy=ScriptedPolicy(turns))
        app.store.add_rating(run.id, rater="ann", verdict="incorrect", corrected_answer=str(60 + i))
    return app


def number_image(number: int) -> Image.Image:
    image = Image.new("RGB", (56, 56), "white")
    ImageDraw.Draw(image).text((4, 18), str(number), fill="black", font=ImageFont.truetype(FONT, 16))
    return image


def test_a_corrected_turn_never_argues_for_the_answer_it_replaces() -> None:
    fixed = final_turn_with("<think>The echo settled it: 65.1.</think>\n<answer>65.1</answer>", "65")
    assert fixed == f"<think>{CORRECTED_THINK.format(answer='65')}</think>\n<answer>65</answer>"
    # Reasoning that does not name the replaced answer is kept ("65" is not named by "65.1" either way round).
    kept = final_turn_with("<think>The label is blurred.</think>\n<answer>65</answer>", "65.1")
    assert kept == "<think>The label is blurred.</think>\n<answer>65.1</answer>"
    assert final_turn_with("<think>It reads 65.</think>\n<answer>65</answer>", "65.1") is not None
    assert "It reads 65." not in final_turn_with("<think>It reads 65.</think>\n<answer>65</answer>", "65.1")


def test_pairs_identical_within_max_length_are_dropped_and_reported(corrected_app: Maestro, tiny: Path,
                                                                    tmp_path: Path) -> None:
    measured = export(corrected_app.store, corrected_app.registry, tmp_path / "all", formats=["dpo"],
                      processor=str(tiny))
    longest = measured.pair_lengths["longest_tokens"]
    assert measured.counts["dpo.jsonl"] == RUNS and measured.pair_lengths["dropped"] == 0
    assert longest > 1024  # the system prompt alone is longer than TRL's default max_length
    # The rows themselves: the corrected turn's reasoning agrees with its answer; the original is as it ran.
    row = load_export(tmp_path / "all", "dpo")[0]
    chosen, rejected = row["chosen"][-1]["content"][0]["text"], row["rejected"][-1]["content"][0]["text"]
    assert ".1" not in chosen and chosen.endswith("</answer>") and CORRECTED_THINK.split("{")[0] in chosen
    assert "settled it" in rejected and ".1</answer>" in rejected

    cut = export(corrected_app.store, corrected_app.registry, tmp_path / "cut", formats=["dpo"],
                 processor=str(tiny), max_length=1024)
    assert cut.counts["dpo.jsonl"] == 0 and cut.pair_lengths["dropped"] == RUNS
    assert cut.skipped["dpo_pair_identical_within_max_length"] == RUNS
    # A max_length that covers the longest pair keeps every pair.
    whole = export(corrected_app.store, corrected_app.registry, tmp_path / "whole", formats=["dpo"],
                   processor=str(tiny), max_length=longest)
    assert whole.counts["dpo.jsonl"] == RUNS and whole.pair_lengths["dropped"] == 0


@pytest.mark.slow
def test_cli_max_length_without_a_processor_is_one_clear_line(tmp_path: Path) -> None:
    env = {**os.environ, "MAESTRO_HOME": str(tmp_path / "home")}
    env.pop("MAESTRO_DB", None)
    done = subprocess.run([sys.executable, "-m", "ui.cli", "export", "--format", "dpo", "--max-length", "2048",
                           "--out", str(tmp_path / "out")], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--max-length needs --processor" in done.stderr + done.stdout


@pytest.mark.slow
def test_trl_dpo_with_the_documented_settings_moves_the_loss_off_ln2(corrected_app: Maestro, tiny: Path,
                                                                      tmp_path: Path) -> None:
    import transformers
    from trl import DPOConfig, DPOTrainer

    from agents.experts.transformers_backend import _load_processor

    manifest = export(corrected_app.store, corrected_app.registry, tmp_path / "out", formats=["dpo"],
                      processor=str(tiny), max_length=8192)
    assert manifest.counts["dpo.jsonl"] == RUNS
    data = load_export(tmp_path / "out", "dpo")
    model = transformers.AutoModelForImageTextToText.from_pretrained(tiny)
    processor = _load_processor(tiny, transformers)
    # docs/training.md: max_length covering the export's longest pair (never cutting into image tokens or the
    # turns where chosen and rejected differ), keep_start, beta 0.1.
    args = DPOConfig(output_dir=str(tmp_path / "run"), max_steps=3, per_device_train_batch_size=2,
                     learning_rate=1e-3, logging_steps=1, save_strategy="no", report_to=[], use_cpu=True,
                     max_length=manifest.pair_lengths["longest_tokens"], truncation_mode="keep_start", beta=0.1)
    trainer = DPOTrainer(model=model, args=args, train_dataset=data, processing_class=processor)
    trainer.train()
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    assert len(losses) == 3 and all(math.isfinite(loss) for loss in losses)
    assert losses[0] == pytest.approx(math.log(2), abs=1e-4)  # the policy starts as its own reference
    assert abs(losses[-1] - math.log(2)) > 1e-2  # and then learns to prefer the corrected turns
