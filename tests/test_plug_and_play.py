"""Dropping a skill folder into a skills path registers it: routing, the orchestrator's prompt, stored runs."""

from __future__ import annotations

import textwrap
from pathlib import Path

from PIL import Image

from agents.config import Settings
from agents.prompts import system_prompt
from agents.runtime import Maestro

SKILL_MD = """\
---
name: Brightness
description: >-
  Input: any photo or drawing. Output: its mean luminance on a 0-255 scale and whether it is bright or dark.
keywords: [bright, dark, brightness, luminance]
level2:
  - id: luminance
    name: Mean Luminance
    description: Averages the grey level of every pixel.
    keywords: [bright, dark]
    tools: [luminance]
---
Is the image bright or dark? Measured: {evidence}
"""

SKILL_PY = '''
"""Answers bright/dark from the mean grey level (a plug-in written by a user)."""
from dataclasses import dataclass

from PIL import ImageStat

from skills.base import SkillContext, SkillResult


@dataclass
class Luminance:
    mean: float
    annotated: object = None

    def summary(self) -> str:
        return f"mean luminance {self.mean:.1f}"


def luminance(image) -> Luminance:
    return Luminance(ImageStat.Stat(image.convert("L")).mean[0])


def run(ctx: SkillContext) -> SkillResult:
    result = ctx.trace.call("luminance", luminance, ctx.image)
    verdict = "bright" if result.mean >= 128 else "dark"
    return SkillResult(observation=f"{result.summary()}: {verdict}", answer=verdict)
'''


def test_a_skill_folder_added_at_run_time_answers_through_the_loop(tmp_path: Path, data_dir: Path) -> None:
    plugins = tmp_path / "my-skills"
    settings = Settings.resolve(data_dir=data_dir, skills_paths=[plugins])
    plugins.mkdir()
    before = Maestro.open(settings)
    assert "Brightness" not in before.registry.skill_names.names

    (plugins / "brightness").mkdir()
    (plugins / "brightness" / "SKILL.md").write_text(SKILL_MD)
    (plugins / "brightness" / "skill.py").write_text(textwrap.dedent(SKILL_PY))
    maestro = Maestro.open(settings)  # a new start picks the folder up; no code changed anywhere

    assert "Brightness" in maestro.registry.skill_names.names
    assert "- Brightness: Input: any photo or drawing." in system_prompt(maestro.registry, 4)
    run = maestro.ask(Image.new("RGB", (40, 30), (20, 20, 30)), "Is this picture bright or dark?")
    assert run.status == "done" and run.answer == "dark"
    assert (run.steps[0].model, run.steps[0].skill, run.steps[0].level2) == ("Tools", "Brightness", "Mean Luminance")
    stored = maestro.store.get_run(run.id)
    assert [c.tool for c in stored.steps[0].tool_calls] == ["luminance"]
    assert stored.steps[0].tool_calls[0].summary == "mean luminance 21.0"  # L = 0.299R + 0.587G + 0.114B


def test_a_malformed_plug_in_is_reported_and_the_rest_keeps_working(tmp_path: Path, data_dir: Path) -> None:
    plugins = tmp_path / "my-skills"
    (plugins / "half-done").mkdir(parents=True)
    (plugins / "half-done" / "SKILL.md").write_text("---\nname: Half Done\n---\n")
    (plugins / "syntax").mkdir()
    (plugins / "syntax" / "SKILL.md").write_text(SKILL_MD.replace("Brightness", "Syntax"))
    (plugins / "syntax" / "skill.py").write_text("def run(ctx) return None\n")
    maestro = Maestro.open(Settings.resolve(data_dir=data_dir, skills_paths=[plugins]))
    problems = {Path(p.path).parent.name: p.message for p in maestro.registry.problems}
    assert set(problems) == {"half-done", "syntax"}
    assert "level2" in problems["half-done"] and "SyntaxError" in problems["syntax"]
    assert "OCR" in maestro.registry.skill_names.names
