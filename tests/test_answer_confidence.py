"""Every answer the tools settle carries a confidence drawn from its own evidence: a chart value from how it was
read (a printed number the bar's size confirms, a printed number alone, a measurement alone), an OCR transcription
from the recogniser's scores. Through the agent on the synthetic mix (charts, signs, labels, 4K needles, shapes,
diagrams, photos) and on tables built here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.config import Settings
from agents.evaluation.harness import evaluate
from agents.runtime import Maestro
from benchmarks.make_synthetic import build
from skills.chart.confidence import extreme_confidence, value_confidence, values_confidence
from skills.ocr.skill import reading_confidence
from vision_tools.charts import AxisFit, ChartMark, ChartResult
from vision_tools.image.boxes import Box
from vision_tools.text import OcrLine

BOX = Box(0, 0, 10, 10)


def _bars(*marks: ChartMark, axis_scale: str = "linear", residual: float = 0.5) -> ChartResult:
    axis = AxisFit("y", -1.0, 100.0, [(100.0, 0.0), (0.0, 100.0)], residual, axis_scale)
    categories = list(dict.fromkeys(m.category for m in marks))
    return ChartResult(kind="bar", series=["value"], categories=categories,
                       table={m.category: {"value": m.value} for m in marks}, marks=list(marks), axis=axis)


def test_a_printed_value_the_bar_confirms_is_surer_than_either_reading_alone() -> None:
    chart = _bars(ChartMark("a", "value", 40.0, "label", BOX, measured=40.8, printed=40.0),
                  ChartMark("b", "value", 70.0, "label", BOX, printed=70.0),
                  ChartMark("c", "value", 55.0, "axis", BOX, measured=55.0))
    both, printed, measured = (value_confidence(chart, c) for c in "abc")
    assert both is not None and printed is not None and measured is not None
    assert both > printed > measured >= 0.5


def test_a_printed_value_the_geometry_contradicts_is_doubted_but_kept() -> None:
    chart = _bars(ChartMark("a", "value", 40.0, "label", BOX, measured=80.0, printed=40.0),
                  ChartMark("b", "value", 70.0, "label", BOX, measured=70.0, printed=70.0))
    assert value_confidence(chart, "a") < value_confidence(chart, "b")
    assert values_confidence(chart, ["a", "b"]) == value_confidence(chart, "a")  # a difference is as weak as a


def test_measurements_against_a_bent_axis_are_weak() -> None:
    straight = _bars(ChartMark("a", "value", 40.0, "axis", BOX, measured=40.0))
    bent = _bars(ChartMark("a", "value", 40.0, "axis", BOX, measured=40.0), axis_scale="nonlinear")
    assert value_confidence(bent, "a") < 0.6 < value_confidence(straight, "a")


def test_a_near_tie_for_the_highest_bar_is_not_called_surely() -> None:
    clear = _bars(ChartMark("a", "value", 90.0, "label", BOX, printed=90.0),
                  ChartMark("b", "value", 50.0, "label", BOX, printed=50.0))
    tie = _bars(ChartMark("a", "value", 90.0, "axis", BOX, measured=90.0),
                ChartMark("b", "value", 89.5, "axis", BOX, measured=89.5))
    assert extreme_confidence(clear, highest=True) >= 0.85 > 0.5 > extreme_confidence(tie, highest=True)


def test_a_transcription_is_as_sure_as_its_least_legible_line() -> None:
    lines = [OcrLine("NO PARKING", BOX, 0.99), OcrLine("4ny t1me", BOX, 0.41)]
    assert reading_confidence(lines) == 0.41
    assert reading_confidence(lines[:1]) == 0.95  # never certain
    assert reading_confidence([]) is None


@pytest.mark.slow
def test_every_answer_on_the_synthetic_mix_has_a_confidence_and_is_right(tmp_path: Path) -> None:
    build(tmp_path / "set", per_kind=4, seed=21, kinds=["text", "charts", "needles", "shapes"])
    maestro = Maestro.open(Settings.resolve(data_dir=tmp_path / "home"))
    evaluate(maestro, tmp_path / "set" / "items.jsonl", tmp_path / "out", progress=False)
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    answered = [r for r in rows if r["status"] == "done"]
    assert len(answered) >= 0.9 * len(rows) >= 12
    assert all(r["confidence"] is not None and 0.0 < r["confidence"] <= 1.0 for r in answered), \
        [(r["category"], r["answer"]) for r in answered if r["confidence"] is None]
    assert all(r["correct"] for r in answered), [(r["category"], r["answer"], r["expected"]) for r in answered]
