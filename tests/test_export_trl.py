"""The SFT export trains: loaded with ``datasets``, one real TRL SFTTrainer step on a tiny random Qwen2-VL (CPU).

The collator is ``training.sft_collator.MaskedVisionCollator`` (only the policy's turns are targets, paper eq. 8):
TRL's own vision collator cannot mask observation turns, and its processor path needs torchvision, which does not
work with CPU torch here. The processor is loaded the way the transformers expert back end loads it.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from agents.config import Settings
from agents.export import export, load_export
from agents.policies.base import ScriptedPolicy
from agents.runtime import Maestro
from tests.tiny_vlm import build_tiny_qwen2vl

FIXTURES = Path(__file__).parent / "fixtures"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


@pytest.fixture(scope="module")
def export_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sft")
    app = Maestro.open(Settings.resolve(data_dir=root / "home", registry_path=FIXTURES / "registry_echo.yaml"),
                       policy=ScriptedPolicy([]))
    image = Image.new("RGB", (56, 56), "white")
    ImageDraw.Draw(image).text((4, 18), "42", fill="black", font=ImageFont.truetype(FONT, 16))
    turns = ["<think>Read it.</think>\n<search> Tools@@Echo: repeat 42 </search>",
             "<think>It is 42.</think>\n<answer>42</answer>"]
    run = app.ask(image, "What number is shown?", policy=ScriptedPolicy(turns))
    app.store.add_rating(run.id, rater="ann", verdict="correct")
    manifest = export(app.store, app.registry, root / "out", formats=["sft"])
    assert manifest.counts["sft.jsonl"] == 1
    return root / "out"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, object]:
    import transformers

    from agents.experts.transformers_backend import _load_processor

    path = build_tiny_qwen2vl(tmp_path_factory.mktemp("tiny"))
    model = transformers.AutoModelForImageTextToText.from_pretrained(path)
    return model, _load_processor(path, transformers)


def test_the_collator_trains_only_the_policy_turns(export_dir: Path, tiny: tuple[object, object]) -> None:
    from training.sft_collator import IGNORE_INDEX, MaskedVisionCollator

    _, processor = tiny
    data = load_export(export_dir, "sft")
    batch = MaskedVisionCollator(processor)([data[0]])
    labels = batch["labels"][0]
    trained = batch["input_ids"][0][labels != IGNORE_INDEX]
    text = processor.tokenizer.decode(trained)
    assert "<search> Tools@@Echo: repeat 42 </search>" in text and "<answer>42</answer>" in text
    assert "<information>" not in text and "Question:" not in text and "Maestro" not in text
    assert "assistant" not in text  # role headers are context, not targets
    image_pad = processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    assert (batch["input_ids"][0] == image_pad).sum() > 0 and "pixel_values" in batch


@pytest.mark.slow
def test_one_trl_sft_step_on_the_exported_conversations(export_dir: Path, tiny: tuple[object, object],
                                                        tmp_path: Path) -> None:
    import torch
    from trl import SFTConfig, SFTTrainer

    from training.sft_collator import MaskedVisionCollator

    model, processor = tiny
    data = load_export(export_dir, "sft")
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    args = SFTConfig(output_dir=str(tmp_path / "run"), max_steps=1, per_device_train_batch_size=1,
                     learning_rate=1e-3, logging_steps=1, save_strategy="no", report_to=[], use_cpu=True,
                     remove_unused_columns=False, dataset_kwargs={"skip_prepare_dataset": True})
    trainer = SFTTrainer(model=model, args=args, train_dataset=data, processing_class=processor,
                         data_collator=MaskedVisionCollator(processor))
    result = trainer.train()
    assert result.global_step == 1 and math.isfinite(result.training_loss) and result.training_loss > 0
    changed = [name for name, p in model.named_parameters() if not torch.equal(before[name], p.detach())]
    assert changed  # the optimiser really stepped on these rows
