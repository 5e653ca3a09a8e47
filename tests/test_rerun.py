"""Reruns through the real app: every skill's stored tool outputs are reused (and marked so), the rerun is
identical to its source apart from timings, linked to it, and stored; a registry that breaks a skill shows up in the
step-by-step diff; the CLI's rerun and diff say so in words and JSON."""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont
from typer.testing import CliRunner

from agents.config import Settings
from agents.replay.diff import diff_runs
from agents.replay.rerun import find_run, rerun, reuse_count
from agents.runtime import Maestro
from ui.cli import app

EXAMPLES = Path(__file__).resolve().parent.parent / "assets" / "examples"
SKILLS = Path(__file__).resolve().parent.parent / "skills"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _label() -> Image.Image:
    image = Image.new("RGB", (1200, 700), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((700, 400, 1000, 500), fill=(245, 140, 20))
    draw.text((730, 425), "BAKERY", fill="black", font=ImageFont.truetype(FONT, 40))
    return image


def _triangle() -> Image.Image:
    image = Image.new("RGB", (400, 300), "white")
    ImageDraw.Draw(image).polygon([(40, 260), (360, 260), (200, 40)], outline="black", width=3)
    return image


def _handle() -> Image.Image:
    image = Image.new("RGB", (400, 300), "white")
    ImageDraw.Draw(image).rounded_rectangle((120, 120, 280, 180), radius=20, outline="black", width=3)
    return image


def _needle() -> Image.Image:
    image = Image.new("RGB", (1920, 1080), (236, 236, 230))
    ImageDraw.Draw(image).regular_polygon((1650, 900, 30), 5, fill=(220, 30, 30))
    return image


# One question per kind of tool result the skills produce, each on its own image (a first run computes every output;
# two cases on one image would share what the first stored, e.g. the text fallback's reading) (OCR lines, chart tables, shape and diagram counts,
# colour, region search with crops, zoom crops, geometry primitives, sandboxed code).
CASES = {
    "ocr": (lambda: EXAMPLES / "sign.png", "What is written on the sign?"),
    "chart": (lambda: EXAMPLES / "bar_chart.png", "Which fruit has the highest value in the chart?"),
    "counting": (lambda: EXAMPLES / "shapes.png", "How many circles are there?"),
    "diagram": (lambda: EXAMPLES / "blindtest_line_intersection.png",
                "Count the intersection points where the blue and red lines meet. Put your answer in curly "
                "brackets, e.g., {2}."),
    "label": (_label, "What word is written on the orange label?"),
    "perception": (_needle, "Where is the red pentagon? Answer with the quadrant."),
    "geometry": (_triangle, "In triangle ABC, what is the measure of angle A?"),
    "embodied": (_handle, "Which action should the robot gripper take to grasp the handle?"),
    "python": (lambda: Image.new("RGB", (64, 64), "white"),
               "What is the output of this Python code?\n```python\nprint(sum(i * i for i in range(5)))\n```"),
}


@pytest.fixture(scope="module")
def maestro(tmp_path_factory: pytest.TempPathFactory) -> Maestro:
    return Maestro.open(Settings.resolve(data_dir=tmp_path_factory.mktemp("home")))


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_cached_rerun_reuses_every_tool_output_and_matches_its_source(maestro: Maestro, case: str) -> None:
    image, question = CASES[case]
    first = maestro.ask(image(), question)
    source = maestro.store.get_run(first.id)
    assert reuse_count(source).calls > 0 and reuse_count(source).reused == 0

    again = rerun(maestro, first.id, tools="cached")
    stored = maestro.store.get_run(again.id)
    count = reuse_count(stored)
    assert count.all_reused and count.calls == reuse_count(source).calls, count
    assert stored.parent_run_id == first.id and stored.config["rerun_of"] == first.id
    assert (stored.status, stored.answer, stored.reason) == (source.status, source.answer, source.reason)
    diff = diff_runs(source, stored)
    assert diff.identical, json.dumps(diff.to_dict(), default=str)[:3000]
    assert diff.headline() == "identical apart from timings" and diff.related == "b reruns a"
    # The evidence images are the very same stored files, referred to rather than written again.
    assert [c.image_id for s in stored.steps for c in s.tool_calls] == \
           [c.image_id for s in source.steps for c in s.tool_calls]


def test_a_cached_rerun_teaches_the_handbook_nothing(maestro: Maestro) -> None:
    from agents.routing.handbook import credits_for

    image, question = CASES["diagram"]
    first = maestro.store.get_run(maestro.ask(image(), question, expected="1", dataset="d", item_id="i").id)
    again = maestro.store.get_run(rerun(maestro, first.id).id)
    assert again.expected == "1" and (again.dataset, again.item_id) == ("d", "i")
    # Its tool time is a lookup and its evidence is the first run's: crediting it would count that twice.
    assert credits_for(first) and credits_for(again) == []
    assert credits_for(maestro.store.get_run(rerun(maestro, first.id, tools="live").id))


def test_a_live_rerun_runs_every_tool_again(maestro: Maestro) -> None:
    image, question = CASES["diagram"]
    first = maestro.ask(image(), question)
    again = rerun(maestro, first.id, tools="live")
    ran = reuse_count(maestro.store.get_run(first.id)).calls
    assert ran > 0 and reuse_count(again).reused == 0 and reuse_count(again).calls == ran
    assert again.answer == first.answer and first.status == "done"
    assert diff_runs(maestro.store.get_run(first.id), maestro.store.get_run(again.id)).identical


def test_a_stored_output_that_no_longer_decodes_runs_live(maestro: Maestro) -> None:
    from sqlalchemy import update

    from storage.tool_outputs import ToolOutput

    image, question = CASES["counting"]
    first = maestro.store.get_run(maestro.ask(image(), question).id)
    key = first.steps[0].tool_calls[0].cache_key
    with maestro.store.transaction() as session:  # as if the result class had gained a field since
        session.execute(update(ToolOutput).where(ToolOutput.cache_key == key)
                        .values(output={"format": 1, "value": {"$t": "dataclass", "cls": "os:system", "f": {}}}))
    again = maestro.store.get_run(rerun(maestro, first.id).id)
    redone = [c for s in again.steps for c in s.tool_calls if c.cache_key == key]
    assert redone and not any(c.reused for c in redone), "the undecodable output is computed again"
    assert again.answer == first.answer and reuse_count(again).reused == reuse_count(again).calls - len(redone)


def broken_registry(tmp_path: Path) -> Path:
    """A registry whose skills folder replaces Diagram-Reasoning with one that always answers {7}."""
    folder = tmp_path / "override" / "diagram"
    folder.mkdir(parents=True)
    shutil.copy(SKILLS / "diagram" / "SKILL.md", folder / "SKILL.md")
    (folder / "skill.py").write_text(textwrap.dedent('''
        from skills.base import SkillResult

        def run(ctx):
            return SkillResult(observation="Answer from the tools: {7}", answer="{7}", confidence=0.9)
    '''))
    registry = tmp_path / "broken.yaml"
    registry.write_text("orchestrator: {policy: keyword}\nskills_paths: [override]\n"
                        "experts:\n  - {name: Tools, backend: tools}\n")
    return registry


def test_cli_rerun_under_another_registry_and_diff_show_the_changed_step(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runner = CliRunner()
    image, question = CASES["diagram"]
    asked = runner.invoke(app, ["ask", str(image()), question, "--json", "--data-dir", str(home)])
    assert asked.exit_code == 0, asked.output
    source, answer = json.loads(asked.output)["run_id"], json.loads(asked.output)["answer"]

    same = runner.invoke(app, ["rerun", source[:10], "--data-dir", str(home)])
    assert same.exit_code == 0, same.output
    said = " ".join(same.output.split())  # rich wraps long lines
    assert re.search(r"\b(\d+) of \1 tool calls? reused", said) and "identical apart from timings" in said

    broken = runner.invoke(app, ["rerun", source, "--registry", str(broken_registry(tmp_path)), "--json",
                                 "--data-dir", str(home)])
    assert broken.exit_code == 0, broken.output
    result = json.loads(broken.output)
    assert result["answer"] == "{7}" and result["parent_run_id"] == source and not result["same_registry"]
    assert result["diff"]["identical_apart_from_timings"] is False
    assert result["reused_tool_calls"] == 0  # the broken skill calls no tool at all

    shown = runner.invoke(app, ["diff", source, result["run_id"], "--data-dir", str(home)])
    assert shown.exit_code == 0, shown.output
    said = " ".join(shown.output.split())
    assert "step 1" in said and "differs" in said and f"{answer} → {{7}}" in said
    as_json = json.loads(runner.invoke(app, ["diff", source, result["run_id"], "--json", "--data-dir",
                                             str(home)]).output)
    assert as_json["run"]["answer"] == [answer, "{7}"]
    assert as_json["steps"][0]["differences"]["settled_answer"] == [answer, "{7}"]
    assert "tool_calls[0]" in as_json["steps"][0]["differences"]


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    for args in (["rerun", "0" * 32], ["diff", "abc", "def"], ["rerun", "0" * 32, "--tools", "sometimes"]):
        result = runner.invoke(app, [*args, "--data-dir", str(tmp_path / "home")])
        assert result.exit_code == 2 and result.output.count("\n") == 1 and "error:" in result.output, result.output


def test_find_run_takes_a_unique_prefix(maestro: Maestro) -> None:
    image, question = CASES["diagram"]
    run = maestro.ask(image(), question)
    assert find_run(maestro.store, run.id[:12].upper()).id == run.id
    with pytest.raises(KeyError):
        find_run(maestro.store, "zzzzzz")


@pytest.mark.slow
def test_a_tool_called_on_an_earlier_tool_s_result_is_keyed_by_that_result(maestro: Maestro, sroie_dir: Path) -> None:
    """The same question on two receipts: the field is read by a method of each receipt's reading, so its cache
    key must follow the reading it belongs to. A rerun never hands one receipt's total to another."""
    items = [json.loads(line) for line in (sroie_dir / "items.jsonl").read_text().splitlines()]
    images = list(dict.fromkeys(item["image"] for item in items))[:2]
    firsts = [maestro.ask(sroie_dir / image, "How much was paid in total?") for image in images]
    assert firsts[0].answer and firsts[1].answer and firsts[0].answer != firsts[1].answer
    for first in firsts:
        again = maestro.store.get_run(rerun(maestro, first.id, tools="cached").id)
        assert again.answer == first.answer
        assert reuse_count(again).all_reused


def test_a_cached_rerun_routes_without_decoding_its_image(maestro: Maestro, monkeypatch: pytest.MonkeyPatch) -> None:
    """The router's look at the image (Chart's image prior) is a stored tool output too, and a stored upright PNG
    is opened undecoded: a rerun whose every tool output is reused never reads the pixels."""
    from PIL import PngImagePlugin

    image, question = CASES["diagram"]
    first = maestro.ask(image(), question)
    decoded: list[str] = []
    real_load = PngImagePlugin.PngImageFile.load

    def counting_load(self: PngImagePlugin.PngImageFile):  # type: ignore[no-untyped-def]
        decoded.append("png")
        return real_load(self)

    monkeypatch.setattr(PngImagePlugin.PngImageFile, "load", counting_load)
    again = rerun(maestro, first.id, tools="cached")
    assert again.answer == first.answer and reuse_count(again).all_reused
    assert decoded == [], "a fully cached rerun decoded its image"
    live = rerun(maestro, first.id, tools="live")
    assert live.answer == first.answer and decoded, "a live rerun reads the pixels"


def test_a_run_is_found_by_a_prefix_of_six_or_more_characters_and_a_short_one_says_why(tmp_path: Path) -> None:
    maestro = Maestro.open(Settings.resolve(data_dir=tmp_path / "d"))
    run = maestro.ask(EXAMPLES / "sign.png", "What is written on the sign?")
    assert run.id is not None
    assert find_run(maestro.store, run.id[:6]).id == run.id
    assert find_run(maestro.store, run.id.upper()).id == run.id  # ids are matched case-insensitively
    with pytest.raises(KeyError, match="at least 6 characters"):
        find_run(maestro.store, run.id[:5])
    with pytest.raises(KeyError, match="no run"):
        find_run(maestro.store, "ffffffffff")
