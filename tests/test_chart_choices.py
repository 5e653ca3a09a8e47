"""Multiple-choice chart questions through the real Chart skill: a letter only where the pixels settle it.

Two kinds of chart: misleading renderings drawn here with matplotlib, whose values are known and whose visually
tempting option is wrong (a truncated y axis, an inverted axis, bars out of proportion with their printed
values); and real charts from the Misleading ChartQA dev set (skipped when the set is not there), where the skill
must answer with the benchmark's letter or abstain with a reason.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from agents.registry import load_registry
from skills.base import SkillResult, ToolTrace
from skills.chart.choices import MIN_CONFIDENCE
from skills.runner import run_skill

DEV = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "misleading-chartqa-dev"
INSTRUCTION = "Answer with the option's letter from the given choices directly."


@pytest.fixture(scope="module")
def registry():
    return load_registry()


def ask(registry, image: Image.Image, question: str) -> SkillResult:
    result, _ = run_skill(registry.skill("Chart"), query=question, question=question, image=image,
                          expert=registry.expert("Tools"), trace=ToolTrace())
    return result


def mc(stem: str, *options: str) -> str:
    return "\n".join([stem, *(f"{chr(65 + i)}. {o}" for i, o in enumerate(options)), INSTRUCTION])


def render(draw) -> Image.Image:  # noqa: ANN001 - a function drawing on matplotlib axes
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 5))
    draw(ax)
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")


def test_a_truncated_axis_does_not_make_a_small_gap_look_large(registry) -> None:
    def draw(ax) -> None:  # noqa: ANN001
        ax.bar(["North", "South", "East"], [82, 85, 90], color="tab:blue")
        ax.set_ylim(80, 92)  # the East bar looks five times the North one
        ax.set_title("Units sold")

    question = mc("How does East compare to North?", "East is about five times North.",
                  "East is about 1.1 times North.", "East is about twice North.", "Cannot be determined from the chart.")
    result = ask(registry, render(draw), question)
    assert result.answer == "B" and result.confidence >= MIN_CONFIDENCE


def test_an_inverted_axis_without_printed_values_is_not_read_as_a_trend(registry) -> None:
    years = ["2019", "2020", "2021", "2022", "2023"]

    def draw(ax) -> None:  # noqa: ANN001
        ax.plot(years, [10, 20, 30, 40, 50], color="tab:red", linewidth=2)
        ax.invert_yaxis()  # rising values drawn as a falling line
        ax.set_title("Members")

    question = mc("What is the trend in members from 2019 to 2023?", "Increasing", "Decreasing", "Constant",
                  "Cannot be determined")
    result = ask(registry, render(draw), question)
    assert result.answer is None and "inverted" in result.missing


def test_an_inverted_axis_with_printed_values_is_read_from_the_values(registry) -> None:
    years = ["2019", "2020", "2021", "2022", "2023"]
    values = [10, 20, 30, 40, 50]

    def draw(ax) -> None:  # noqa: ANN001
        ax.plot(years, values, color="tab:red", linewidth=2, marker="o")
        for x, v in zip(years, values, strict=True):
            ax.annotate(str(v), (x, v), textcoords="offset points", xytext=(0, 8), ha="center", fontsize=11)
        ax.invert_yaxis()
        ax.set_title("Members")

    question = mc("What is the trend in members from 2019 to 2023?", "Increasing", "Decreasing", "Constant",
                  "Cannot be determined")
    result = ask(registry, render(draw), question)
    assert result.answer == "A"  # the visual trap is B


def test_printed_values_win_over_bars_out_of_proportion(registry) -> None:
    def draw(ax) -> None:  # noqa: ANN001
        bars = ax.bar(["Alpha", "Beta", "Gamma"], [20, 40, 30], color=["tab:red", "tab:green", "tab:orange"])
        ax.bar_label(bars, labels=["50%", "10%", "40%"], fontsize=13)
        ax.set_title("Market share")

    question = mc("Which company has the largest market share according to the percentages shown?", "Alpha", "Beta",
                  "Gamma", "They are equal")
    result = ask(registry, render(draw), question)
    assert result.answer == "A"  # the tallest bar (Beta) is the trap


def test_a_question_the_table_cannot_check_is_abstained_on_with_a_reason(registry) -> None:
    def draw(ax) -> None:  # noqa: ANN001
        ax.bar(["Q1", "Q2", "Q3"], [5, 7, 6], color="tab:purple")

    question = mc("What is the most appropriate way to read this chart?", "As a story of hope.",
                  "As a warning about the economy.", "Cannot be determined from the chart.")
    result = ask(registry, render(draw), question)
    assert result.answer is None and result.confidence is None and "VLM expert" in result.missing


def poll_chart() -> Image.Image:
    def draw(ax) -> None:  # noqa: ANN001
        ax.bar(["Rivera", "Okafor", "Lindqvist"], [44, 38, 18], color="tab:blue")
        ax.set_title("Poll results as of week 3")

    return render(draw)


def test_partial_data_asked_about_the_outcome_gets_the_option_that_says_it_is_not_known(registry) -> None:
    question = mc("The poll closes in week 8. Which of the following is true?", "Rivera will win the poll.",
                  "The outcome cannot be determined yet.", "The results are already final.",
                  "Okafor will win the poll.")
    result = ask(registry, poll_chart(), question)
    assert result.answer == "B" and result.features["chosen_cannot"] == 1.0


def test_partial_data_without_an_option_saying_so_is_abstained_on(registry) -> None:
    question = mc("The poll closes in week 8. Who will win?", "Rivera", "Okafor", "Lindqvist")
    result = ask(registry, poll_chart(), question)
    assert result.answer is None and "partial" in result.missing


def test_bars_cut_off_at_the_top_of_the_plot_are_not_read_as_equal(registry) -> None:
    def draw(ax) -> None:  # noqa: ANN001
        ax.bar(["2018", "2019", "2020", "2021", "2022"], [21, 34, 48, 90, 120], color="tab:blue")
        ax.set_ylim(0, 52)  # the last three bars run past the top of the plot
        ax.set_yticks(range(0, 51, 10))
        ax.set_title("Revenue ($M)")

    image = render(draw)
    same = mc("Which statement is best supported by the chart?", "Revenue in 2021 and 2022 is exactly the same.",
              "Revenue was highest in 2018.", "Revenue fell every year.",
              "It is not possible to tell from the chart whether 2021 or 2022 had the higher revenue.")
    result = ask(registry, image, same)
    assert result.answer == "D" and "top of the plot" in result.observation
    without = mc("Which statement is best supported by the chart?", "Revenue in 2021 and 2022 is exactly the same.",
                 "Revenue in 2022 was twice that of 2020.", "Revenue fell every year.")
    assert ask(registry, image, without).answer is None


def dev_items() -> list[dict]:
    if not (DEV / "items.jsonl").exists():
        return []
    return [json.loads(line) for line in (DEV / "items.jsonl").read_text().splitlines() if line.strip()]


def dev_item(name: str) -> dict:
    found = [item for item in dev_items() if item["id"] == name]
    if not found:
        pytest.skip(f"Misleading ChartQA dev set (item {name}) not found at {DEV}")
    return found[0]


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "chart_data_visual_disproportion_bar_chart_93",  # printed percentages, bars out of proportion
    "chart_MS_inappropriate_order_bar_chart_49",  # days scrambled: first and last 7 days summed in order
    "chart_misleading_annotations_line_chart_22",  # the title says "Decreasing"; the line rises
    "chart_lack_of_scales_bar_chart_1",  # no value scale: the ratio options cannot be checked
])
def test_real_charts_the_pixels_settle_get_the_right_letter(registry, name: str) -> None:
    item = dev_item(name)
    result = ask(registry, Image.open(DEV / item["image"]), item["question"])
    assert result.answer == item["answer"], result.observation[-600:]
    assert result.answer != item["misleader_answer"] and result.confidence >= MIN_CONFIDENCE


@pytest.mark.slow
@pytest.mark.parametrize(("name", "reason"), [
    ("chart_MS_inappropriate_scale_range_line_chart_44", "shows only"),  # no option speaks of the years missing
    ("chart_MS_inappropriate_scale_functions_bar_chart_83", "not linear"),  # a power-scale axis
    ("chart_overplotting_scatter_plot_11", "could not read"),  # a scatter plot
])
def test_real_charts_that_need_judgement_are_abstained_on_with_a_reason(registry, name: str, reason: str) -> None:
    item = dev_item(name)
    result = ask(registry, Image.open(DEV / item["image"]), item["question"])
    assert result.answer is None and reason in result.missing, result.missing


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "chart_cherry_picking_line_chart_44",  # 1968-1975 asked about as 1960-1980: "this segment alone cannot …"
    "chart_concealed_uncertainty_bar_chart_27",  # "as of Aug 15": the winner cannot be determined yet
    "chart_exceeding_the_canvas_bar_chart_43",  # three bars run flat into the top of the plot
])
def test_real_charts_whose_limit_the_tools_see_get_the_option_that_says_so(registry, name: str) -> None:
    item = dev_item(name)
    result = ask(registry, Image.open(DEV / item["image"]), item["question"])
    assert result.answer == item["answer"], result.observation[-600:]
    assert result.features["chosen_cannot"] == 1.0


@pytest.mark.slow
@pytest.mark.parametrize(("name", "feature"), [
    # Printed shares matched to the wrong slices: "Company B is the largest" read from a label of another slice.
    ("chart_data_visual_disproportion_pie_chart_37", "printed_disagreements"),
    # Two slices whose names were not read ("Slice 2", "Slice 5"): a ranking over the named ones only.
    ("chart_data_visual_disproportion_pie_chart_18", "unnamed_categories"),
])
def test_a_ranking_over_a_table_in_doubt_is_not_answered(registry, name: str, feature: str) -> None:
    item = dev_item(name)
    result = ask(registry, Image.open(DEV / item["image"]), item["question"])
    assert result.answer is None and result.features[feature] > 0, result.observation[-600:]
    assert result.features["chosen_ranking"] == 1.0  # the letter it would have given was a ranking
