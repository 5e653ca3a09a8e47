"""The SFT export trains: loaded with ``datasets``, real TRL SFTTrainer steps on a tiny random Qwen2-VL (CPU), at
batch size 1 and at batch size 4 over conversations whose images (and so image-token counts) differ in size.

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
from agents.export.training_data import export, load_export
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


#: Images of different sizes and aspect ratios: the tiny processor gives each a different number of image tokens.
MIXED = [((56, 56), "What number is shown?"), ((180, 90), "Which number is written here?"),
         ((120, 240), "What is the number in the picture?"), ((300, 200), "Read the number.")]


@pytest.fixture(scope="module")
def mixed_export_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sft-mixed")
    app = Maestro.open(Settings.resolve(data_dir=root / "home", registry_path=FIXTURES / "registry_echo.yaml"),
                       policy=ScriptedPolicy([]))
    for i, (size, question) in enumerate(MIXED):
        image = Image.new("RGB", size, "white")
        ImageDraw.Draw(image).text((4, 4), str(40 + i), fill="black", font=ImageFont.truetype(FONT, 16))
        turns = [f"<think>Read it.</think>\n<search> Tools@@Echo: repeat {40 + i} </search>",
                 f"<think>It is {40 + i}.</think>\n<answer>{40 + i}</answer>"]
        run = app.ask(image, question, policy=ScriptedPolicy(turns))
        app.store.add_rating(run.id, rater="ann", verdict="correct")
    manifest = export(app.store, app.registry, root / "out", formats=["sft"])
    assert manifest.counts["sft.jsonl"] == len(MIXED)
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


def test_a_batch_of_four_pads_every_per_token_tensor(mixed_export_dir: Path, tiny: tuple[object, object]) -> None:
    import torch

    from training.sft_collator import IGNORE_INDEX, MaskedVisionCollator

    _, processor = tiny
    collator = MaskedVisionCollator(processor)
    data = load_export(mixed_export_dir, "sft")
    rows = [data[i] for i in range(len(MIXED))]
    batch = collator(rows)
    singles = [collator([row]) for row in rows]
    lengths = [int(single["input_ids"].shape[1]) for single in singles]
    assert len(set(lengths)) == len(MIXED)  # the rows really differ in length
    width = max(lengths)
    per_token = [key for key, value in singles[0].items() if value.shape[-1] == lengths[0]]
    assert {"input_ids", "attention_mask", "labels", "mm_token_type_ids"} <= set(per_token)
    pad = processor.tokenizer.pad_token_id
    for key in per_token:
        assert batch[key].shape == (len(MIXED), width), key
    for i, (single, n) in enumerate(zip(singles, lengths, strict=True)):
        for key in per_token:  # each row is exactly its own encoding, then padding
            assert torch.equal(batch[key][i, :n], single[key][0]), key
        assert (batch["input_ids"][i, n:] == pad).all() and (batch["attention_mask"][i, n:] == 0).all()
        assert (batch["labels"][i, n:] == IGNORE_INDEX).all() and (batch["mm_token_type_ids"][i, n:] == 0).all()
    # Vision inputs are concatenated in row order: one grid per image, one block of patches per grid.
    assert torch.equal(batch["image_grid_thw"], torch.cat([s["image_grid_thw"] for s in singles]))
    assert batch["pixel_values"].shape[0] == int(batch["image_grid_thw"].prod(dim=1).sum())


@pytest.mark.slow
def test_trl_trains_at_batch_size_four(mixed_export_dir: Path, tiny: tuple[object, object], tmp_path: Path) -> None:
    import torch
    from trl import SFTConfig, SFTTrainer

    from training.sft_collator import MaskedVisionCollator

    model, processor = tiny
    data = load_export(mixed_export_dir, "sft")
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    args = SFTConfig(output_dir=str(tmp_path / "run"), max_steps=3, per_device_train_batch_size=4,
                     learning_rate=1e-3, logging_steps=1, save_strategy="no", report_to=[], use_cpu=True,
                     remove_unused_columns=False, dataset_kwargs={"skip_prepare_dataset": True})
    trainer = SFTTrainer(model=model, args=args, train_dataset=data, processing_class=processor,
                         data_collator=MaskedVisionCollator(processor))
    result = trainer.train()
    assert result.global_step == 3
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    assert len(losses) == 3 and all(math.isfinite(loss) and loss > 0 for loss in losses)
    changed = [name for name, p in model.named_parameters() if not torch.equal(before[name], p.detach())]
    assert any(name.startswith("model.visual") for name in changed)  # the images reached the vision tower
    assert any("language_model" in name for name in changed)
