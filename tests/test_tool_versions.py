"""Tool versions in the tool-output cache: a cached rerun after a tool's threshold changed runs that tool again and
says so; a new question on an image asked about before reuses the tools' outputs, and a tool whose version changed
runs again there too."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import json
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from agents.config import Settings
from agents.replay.rerun import changed_tools, rerun, reuse_count
from agents.routing.handbook import credits_for
from agents.runtime import Maestro
from ui.cli import app
from vision_tools.image import config as image_config
from vision_tools.image.loading import ImageError, load_image
from vision_tools.text import config as ocr_config
from vision_tools.versions import ToolConfig, tool_version

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
QUESTION = "What is written on the sign?"


def _ocr_calls(run: object) -> list:
    return [c for s in run.steps for c in s.tool_calls if c.tool.startswith("ocr.")]  # type: ignore[attr-defined]


def test_a_threshold_is_part_of_the_version() -> None:
    from vision_tools.text.ocr import read_text

    before = tool_version(read_text)
    assert before == ocr_config.CONFIG.compute_hash() != ""
    changed = dataclasses.replace(ocr_config.CONFIG, upscale_target=ocr_config.CONFIG.upscale_target + 1)
    assert changed.compute_hash() != before
    assert dataclasses.replace(changed, upscale_target=ocr_config.CONFIG.upscale_target).compute_hash() == before


#: Each family with its config: a public tool of the family and one of its thresholds.
FAMILIES = [
    ("vision_tools.charts", "vision_tools.charts.parse", "parse_chart", "min_side"),
    ("vision_tools.detection", "vision_tools.detection.shapes", "find_shapes", "work_side"),
    ("vision_tools.diagrams", "vision_tools.diagrams.contact", "circles_touch", "touch_tolerance_px"),
    ("vision_tools.documents", "vision_tools.documents.reading", "read_field", "header_rows"),
    ("vision_tools.geometry", "vision_tools.geometry.primitives", "geometry_primitives", "work_side"),
    ("vision_tools.zoom", "vision_tools.zoom.regions", "crop", "search_side"),
    ("vision_tools.image", "vision_tools.image.kind", "image_kind", "measure_side"),
    ("vision_tools.text", "vision_tools.text.ocr", "read_text", "upscale_target"),
]


@pytest.mark.parametrize(("family", "module", "function", "field"), FAMILIES)
def test_every_family_versions_its_thresholds(family: str, module: str, function: str, field: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    config_module = importlib.import_module(f"{family}.config")
    config = config_module.CONFIG
    tool = getattr(importlib.import_module(module), function)
    assert isinstance(config, ToolConfig)
    before = tool_version(tool)
    assert before == config.compute_hash() != ""
    value = getattr(config, field)
    changed = dataclasses.replace(config, **{field: value + 1})
    assert type(getattr(changed, field)) is type(value)
    assert changed.compute_hash() != before
    assert dataclasses.replace(changed, **{field: value}).compute_hash() == before
    monkeypatch.setattr(config_module, "CONFIG", changed)
    assert tool_version(tool) == changed.compute_hash() != before


@pytest.mark.parametrize("family", sorted({family for family, *_ in FAMILIES}))
def test_a_config_module_imports_nothing_of_its_family(family: str) -> None:
    # The family's modules import its config: a config importing them back would make an import cycle.
    tree = ast.parse(Path(importlib.import_module(f"{family}.config").__file__ or "").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert {name for name in imported if name.startswith("vision_tools")} == {"vision_tools.versions"}


def test_a_replaced_config_takes_effect_at_the_next_call(monkeypatch: pytest.MonkeyPatch) -> None:
    image = Image.new("RGB", (100, 100))
    assert load_image(image).size == (100, 100)
    monkeypatch.setattr(image_config, "CONFIG", dataclasses.replace(image_config.CONFIG, max_pixels=5_000))
    with pytest.raises(ImageError, match="image too large"):
        load_image(image)


def test_a_cached_rerun_after_a_threshold_change_reruns_that_tool(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    maestro = Maestro.open(Settings.resolve(data_dir=tmp_path))
    first = maestro.store.get_run(maestro.ask(EXAMPLES / "sign.png", QUESTION).id)
    assert _ocr_calls(first) and all(c.tool_version and not c.reused for c in _ocr_calls(first))

    same = rerun(maestro, first.id)  # nothing changed: every OCR output is reused
    assert _ocr_calls(same) and all(c.reused for c in _ocr_calls(same)) and changed_tools(first, same) == []

    monkeypatch.setattr(ocr_config, "CONFIG", dataclasses.replace(ocr_config.CONFIG, upscale_target=700))
    again = rerun(maestro, first.id)
    assert _ocr_calls(again) and not any(c.reused for c in _ocr_calls(again))
    assert {c.tool_version for c in _ocr_calls(again)} == {ocr_config.CONFIG.compute_hash()}
    assert "ocr.read_text" in changed_tools(first, again)
    assert again.answer == first.answer  # the sign still reads the same

    # The CLI says which tools ran again, in JSON and in words (each after another change: an output computed
    # under a version once is reused under it from then on).
    monkeypatch.setattr(ocr_config, "CONFIG", dataclasses.replace(ocr_config.CONFIG, upscale_target=701))
    result = CliRunner().invoke(app, ["rerun", first.id, "--data-dir", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    assert "ocr.read_text" in json.loads(result.output)["tools_changed"]
    monkeypatch.setattr(ocr_config, "CONFIG", dataclasses.replace(ocr_config.CONFIG, upscale_target=702))
    words = CliRunner().invoke(app, ["rerun", first.id, "--data-dir", str(tmp_path)])
    assert "version changed since the original run: ocr.read_text" in " ".join(words.output.split())


@pytest.mark.slow
def test_a_second_question_on_an_image_reuses_its_tool_outputs(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    maestro = Maestro.open(Settings.resolve(data_dir=tmp_path))
    image = EXAMPLES / "bar_chart.png"
    first = maestro.ask(image, "Which fruit has the highest value in the chart?")
    calls = [c for s in first.steps for c in s.tool_calls]
    assert calls and not any(c.reused for c in calls)
    second = maestro.ask(image, "Which fruit has the lowest value in the chart?", expected="Grape")
    parses = [c for s in second.steps for c in s.tool_calls if c.tool == "chart.parse_chart"]
    assert parses and all(c.reused for c in parses)
    assert second.status == first.status == "done" and second.answer != first.answer
    # Its verdict counts for the pair; its step took a lookup's time, so it is no sample of the pair's cost.
    credits = credits_for(maestro.store.get_run(second.id))
    assert credits and all(c.calls == 0 and c.latency_ms == 0 for c in credits)
    assert any(c.success == 1.0 for c in credits) == (second.answer == "Grape")
    # Asked live on purpose, every tool runs.
    live = maestro.ask(image, "Which fruit has the lowest value in the chart?", live_tools=True)
    assert reuse_count(live).reused == 0 and live.answer == second.answer
