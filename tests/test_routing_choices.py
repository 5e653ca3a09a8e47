"""Routing of multiple-choice questions: the answer-format instruction routes nothing, a chart image reaches the
Chart skill, the circled-letter tool needs a circled or highlighted letter, and a settled answer that is not one of
the offered letters is never given."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from agents.outcome import settle
from agents.policies.base import Context
from agents.policies.keyword import KeywordPolicy
from agents.registry import load_registry
from agents.routing.skill_inference import infer_skills
from skills.answer_form import answer_form
from skills.question_text import task_text
from skills.runner import choose_level2
from storage.trace import Step

INSTRUCTION = "Answer with the option's letter from the given choices directly."


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def chart_image() -> Image.Image:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    ax.bar(["HR", "Sales", "Tech"], [12, 18, 15], color="tab:green")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")


def map_of_totals() -> Image.Image:
    """A rendered map (no axes, small pale regions: the chart look is weak) of totals with a colour scale."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Polygon, Rectangle

    fig, ax = plt.subplots(figsize=(8, 5))
    regions = {"A": ([(0.05, 0.6), (0.2, 0.62), (0.2, 0.85), (0.08, 0.82)], "#b3a7d6"),
               "B": ([(0.4, 0.7), (0.55, 0.7), (0.55, 0.9), (0.42, 0.88)], "#cfc8e6"),
               "C": ([(0.45, 0.2), (0.6, 0.2), (0.6, 0.4), (0.5, 0.42)], "#9e90cc")}
    for name, (points, colour) in regions.items():
        ax.add_patch(Polygon(points, closed=True, facecolor=colour, edgecolor="#777777", linewidth=0.8))
        ax.text(sum(p[0] for p in points) / 4, sum(p[1] for p in points) / 4, name, fontsize=14,
                fontweight="bold", ha="center", va="center")
    for i, colour in enumerate(["#f2f0f7", "#dadaeb", "#bcbddc", "#9e9ac8", "#756bb1", "#54278f"]):
        ax.add_patch(Rectangle((0.85, 0.2 + i * 0.1), 0.04, 0.1, facecolor=colour, edgecolor="none"))
        ax.text(0.9, 0.2 + i * 0.1, f"{i * 4000:,}", fontsize=9, va="center")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    ax.set_title("Total CO2 Emissions by Country", fontsize=16, loc="left")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")


def photo_like() -> Image.Image:
    rng = np.random.default_rng(3)
    return Image.fromarray(rng.integers(0, 255, (240, 320, 3), dtype=np.uint8))


def test_answer_format_instructions_are_not_part_of_the_task() -> None:
    stem, options = task_text(f"Which is largest?\nA. Tea\nB. Coffee\n{INSTRUCTION}")
    assert stem == "Which is largest?" and "letter" not in stem + options
    assert task_text("Count the circles. Answer with a number in curly brackets e.g. {3}.")[0] == "Count the circles."
    assert task_text("Which letter is circled?")[0] == "Which letter is circled?"


def test_the_option_letter_instruction_does_not_pick_the_circled_letter_tool(registry) -> None:
    question = f"Do HR employees have salaries above 18 thousand?\nA. Yes\nB. No\nC. Cannot be inferred\n{INSTRUCTION}"
    diagram = registry.skill("Diagram-Reasoning").spec
    assert choose_level2(diagram.level2, question).level2.id != "highlighted_character"
    assert choose_level2(diagram.level2, "Which letter is being circled?").level2.id == "highlighted_character"
    assert choose_level2(diagram.level2, "Which character is highlighted with a red oval?").level2.id == \
        "highlighted_character"
    assert infer_skills(question, [s.spec for s in registry.skills])[0].skill != "Diagram-Reasoning"


def test_option_words_do_not_outvote_the_stem(registry) -> None:
    question = (f"Which statement about the bar chart is correct?\nA. The red segment is above the blue one.\n"
                f"B. The number of items is below ten.\n{INSTRUCTION}")
    assert infer_skills(question, [s.spec for s in registry.skills])[0].skill == "Chart"


def test_a_multiple_choice_question_about_a_chart_goes_to_the_chart_skill(registry) -> None:
    question = (f"Across all shown dates, which station has the lowest total number of visitors?\nA. Station X\n"
                f"B. Station Y\nC. Station Z\n{INSTRUCTION}")
    words_only = infer_skills(question, [s.spec for s in registry.skills])[0].skill
    assert words_only == "Counting"  # "total number of": the words alone say counting
    policy = KeywordPolicy()
    on_chart = policy.candidates(Context(question, chart_image(), registry, [], 4, 0))
    assert on_chart[0][1] == "Chart" and "looks like" in on_chart[0][2].skill_reason
    on_photo = policy.candidates(Context(question, photo_like(), registry, [], 4, 0))
    assert on_photo[0][1] == "Counting"


def test_a_settled_answer_outside_the_offered_letters_is_not_given(registry) -> None:
    question = f"Which is largest?\nA. Tea\nB. Coffee\n{INSTRUCTION}"
    form = answer_form(question)
    step = Step(index=0, kind="search", model="Tools", skill="Diagram-Reasoning", settled_answer="E",
                confidence=0.9)
    outcome = settle("E", [step], form, min_confidence=0.5, expert_confidence=0.6)
    assert outcome.status == "abstained" and outcome.answer is None
    step.settled_answer = "B."
    assert settle("B.", [step], form, min_confidence=0.5, expert_confidence=0.6).answer == "B"


@pytest.mark.parametrize("policy_name", ["keyword", "router"])
def test_a_chart_is_read_when_the_question_does_not_say_chart(registry, tmp_path, policy_name: str) -> None:
    """"What is the value for Sales?" names no kind of image; both policies try the skill that recognises the
    picture (after the skills the words name, or first for a choice), and never on a photograph."""
    from agents.config import Settings
    from agents.runtime import Maestro, build_policy

    maestro = Maestro.open(Settings.resolve(data_dir=tmp_path))
    maestro.policy = KeywordPolicy() if policy_name == "keyword" else build_policy(maestro.registry, maestro.store)
    value = maestro.ask(chart_image(), "What is the value for Sales?")
    assert value.status == "done" and value.confidence is not None
    assert abs(float(value.answer or "nan") - 18) <= 0.02 * 18  # measured against the axis: 17.99 is 18
    choice = maestro.ask(chart_image(), "Which team has the highest value?\nA. HR\nB. Sales\nC. Tech\n" + INSTRUCTION)
    # The chart skill reads it; whether "B" is given depends on how its multiple-choice answers were rated
    # (docs/trust.md: on real charts they are not yet right often enough for 95 %), not on routing.
    assert choice.trust["candidate"] == "B" and choice.trust["evidence"]["skill"] == "Chart"
    assert choice.status == "done" or "rated examples" in choice.reason
    on_photo = maestro.ask(photo_like(), "What is the value for Sales?")
    assert on_photo.status == "abstained" and on_photo.answer is None
    assert "Chart" not in [s.skill for s in on_photo.steps if s.kind == "search"]


@pytest.mark.slow
@pytest.mark.parametrize("policy_name", ["keyword", "router"])
def test_a_multiple_choice_question_on_a_graphic_the_chart_look_cannot_place_tries_the_chart_skill_last(
        registry, tmp_path, policy_name: str) -> None:
    """A map: the words name no chart, the look is weak (no axes, small regions). OCR settles a transcription,
    which is no option letter, so the Chart skill is tried next, and it sees that totals cannot give a rate per
    person. The same question on a photograph never reaches the Chart skill."""
    from agents.config import Settings
    from agents.runtime import Maestro, build_policy

    maestro = Maestro.open(Settings.resolve(data_dir=tmp_path))
    maestro.policy = KeywordPolicy() if policy_name == "keyword" else build_policy(maestro.registry, maestro.store)
    question = ("Which labelled region has the highest CO2 emissions per person?\nA. A\nB. B\nC. C\n"
                f"D. Cannot be inferred / inadequate information\n{INSTRUCTION}")
    run = maestro.ask(map_of_totals(), question)
    skills = [s.skill for s in run.steps if s.kind == "search"]
    assert "Chart" in skills and skills[-1] == "Chart"
    assert run.trust["candidate"] == "D" and run.answer in ("D", None)
    on_photo = maestro.ask(photo_like(), question)
    assert "Chart" not in [s.skill for s in on_photo.steps if s.kind == "search"]


@pytest.mark.parametrize("question", ["where's the yellow hexagon", "wheres the yellow hexagon?",
                                      "Where’s the yellow hexagon"])
def test_a_contracted_question_word_routes_like_the_written_out_one(registry, question: str) -> None:
    specs = [s.spec for s in registry.skills]
    written = infer_skills("where is the yellow hexagon", specs)[0]
    contracted = infer_skills(question, specs)[0]
    assert (contracted.skill, contracted.keyword_score) == (written.skill, written.keyword_score) == ("Perception", 1.5)
