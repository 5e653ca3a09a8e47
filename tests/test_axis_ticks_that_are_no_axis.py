"""Numbers printed down a board are no axis (notices benchmark): a price list's bold title was read as bars and its
prices "£41.35", "£17.35" as ticks ("how much does a year pass cost" was 50.5); a nutrition label's "45.0g",
"26.6g", "9.5g" likewise (its fat was 115). An axis's ticks are evenly stepped, a tick OCR missed leaving a whole
number of steps, and are written no finer than a thousandth of their range."""

from __future__ import annotations

import pytest

from vision_tools.charts.result import AxisFit


def axis(values: list[float]) -> AxisFit:
    return AxisFit("y", -1.0, 0.0, [(float(k * 50), v) for k, v in enumerate(values)], 0.0)


@pytest.mark.parametrize("values", [
    [14000.0, 12000.0, 10000.0, 8000.0, 6000.0, 4000.0, 2000.0, 0.0],
    [0.0, 0.5, 1.0, 1.5],
    [25.0, 150.0, 175.0],  # ticks OCR missed between 25 and 150
    [12.5, 25.0, 37.5, 50.0],
    [-10.0, 0.0, 10.0, 20.0],
])
def test_ticks_an_axis_prints(values: list[float]) -> None:
    assert axis(values).stepped


@pytest.mark.parametrize("values", [[45.0, 26.6, 9.5], [41.35, 17.35], [3.40, 4.25, 6.45]])
def test_values_printed_down_a_board(values: list[float]) -> None:
    assert not axis(values).stepped
