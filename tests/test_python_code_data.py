"""Code in an image is data: the Python Code skill runs it only when the question asks what it does when run
(its output, return value, exception), and then only in the sandbox; otherwise it answers nothing and says why."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PIL import Image, ImageDraw, ImageFont

import sandbox
from skills.base import SkillContext, ToolTrace
from skills.python_code import skill as python_code

MONO = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
needs_sandbox = pytest.mark.skipif(bool(sandbox._missing_prerequisites()), reason="strict sandbox unavailable")


def _code_image(lines: list[str]) -> Image.Image:
    image = Image.new("RGB", (900, 80 + 60 * len(lines)), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(MONO, 36)
    for row, line in enumerate(lines):
        draw.text((40, 40 + 60 * row), line, fill="black", font=font)
    return image


def _ask(image: Image.Image, question: str) -> tuple[python_code.SkillResult, ToolTrace]:
    trace = ToolTrace()
    context = SkillContext(query=question, question=question, image=image, expert=SimpleNamespace(neural=False),
                           spec=None, level2=None, trace=trace)
    return python_code.run(context), trace


@pytest.mark.parametrize("question", [
    "What programming language is the code in this image written in?",
    "Describe what the code in the picture is about.",
    "How many lines of code are shown?",
])
def test_code_read_from_an_image_is_not_run_when_the_question_is_not_about_its_behaviour(question: str) -> None:
    image = _code_image(["total = 6 * 7", "print(total)"])
    result, trace = _ask(image, question)
    tools = [call.tool for call in trace.calls]
    assert "ocr.read_text" in tools and "python.run" not in tools
    assert result.answer is None and result.missing and "not run" in result.missing
    assert "print(total)" in result.observation  # the code is still reported, as data


@needs_sandbox
def test_code_read_from_an_image_runs_in_the_sandbox_when_its_output_is_asked() -> None:
    image = _code_image(["total = 6 * 7", "print(total)"])
    result, trace = _ask(image, "What does this code print?")
    assert [call.tool for call in trace.calls] == ["ocr.read_text", "python.run"]
    assert result.answer == "42" and result.confidence and result.confidence > 0.5
    run = trace.calls[-1].data
    assert run["mode"] == "strict" and any("seccomp" in p for p in run["protections"])


@needs_sandbox
def test_the_exception_is_the_answer_only_when_the_question_asks_for_it() -> None:
    image = _code_image(["items = [1, 2, 3]", "print(items[1] / 0)"])
    raised, _ = _ask(image, "Which exception does this code raise?")
    assert raised.answer == "ZeroDivisionError"
    printed, _ = _ask(image, "What is the output of this code?")
    assert printed.answer is None and "ZeroDivisionError" in (printed.missing or "")


@needs_sandbox
def test_hostile_code_in_an_image_is_stopped_and_gives_no_answer() -> None:
    image = _code_image(["import os", "print(os.listdir('/'))"])
    result, trace = _ask(image, "What does this code print?")
    assert "python.run" in [call.tool for call in trace.calls]
    assert result.answer is None and "stopped by" in (result.missing or "")


def test_a_question_about_behaviour_is_recognised() -> None:
    assert python_code.asks_about_behaviour("What is the output of this Python code?")
    assert python_code.asks_about_behaviour("What does the function return when called with 3?")
    assert python_code.asks_about_behaviour("Does this snippet raise an exception?")
    assert not python_code.asks_about_behaviour("Which variable names appear in the code?")
    assert not python_code.asks_about_behaviour("Is this code written in Python or Java?")
