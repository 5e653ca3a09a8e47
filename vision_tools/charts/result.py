"""The result of parsing a chart: the data table, the marks it was read from, and how each value was obtained.

``ChartResult.table`` maps category -> series -> value. Bar, horizontal bar and line charts have one series named
``"value"`` unless a legend names them; grouped bars and multi-line charts have one per legend entry. A pie chart has
the single series ``"percent"`` holding each slice's share of the whole (0-100).

Every value remembers its source in ``marks``: ``"label"`` (a number printed on the chart, read by OCR and checked
against the geometry), ``"axis"`` (measured against the calibrated axis), ``"printed"`` (a pie percentage printed
on the slice that agrees with its angle) or ``"angle"`` (a pie share measured from the slice's angle).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher

from PIL import Image

from vision_tools.image.boxes import Box

PIE_SERIES = "percent"
DEFAULT_SERIES = "value"
#: The start of the warning a parser gives when it matched one label to several marks (a donut's ring read as extra
#: slices, one legend colour for two slices); the label follows it.
SEVERAL_MARKS = "one label was matched to several marks: "
#: The start of a warning that doubts no reading: a dashed goal or average line left out of the series.
LEVEL_LINES = "dashed level line(s) left out"


@dataclass
class ChartMark:
    """One bar, line point or pie slice, with the value read for it and where that value came from."""

    category: str
    series: str
    value: float
    source: str  # "label" | "axis" | "printed" | "angle"
    box: Box  # original-image pixels: the bar, a small square around the point or around the slice's middle
    measured: float | None = None  # from the geometry (axis or angle)
    printed: float | None = None  # from a number printed on the chart
    colour: tuple[int, int, int] = (0, 0, 0)

    def to_dict(self) -> dict:
        return {"category": self.category, "series": self.series, "value": _round(self.value),
                "source": self.source, "box": self.box.as_list(),
                "measured": None if self.measured is None else _round(self.measured),
                "printed": None if self.printed is None else _round(self.printed), "colour": list(self.colour)}


@dataclass
class AxisFit:
    """A value axis calibrated from its tick labels: ``value = slope * pixel + intercept``."""

    orientation: str  # "y" (vertical value axis) or "x" (horizontal value axis)
    slope: float
    intercept: float
    ticks: list[tuple[float, float]]  # (pixel position, tick value) of the labels used
    residual: float  # largest |fitted - printed| over the ticks used, in value units
    #: "linear"; "nonlinear" when other tick labels of the same axis sit off the line (a log or power scale:
    #: values measured against the fit are wrong between those ticks); "inverted" when values grow downwards
    #: (or leftwards): measurements are right, but the marks' visual direction is reversed.
    scale: str = "linear"
    #: A second value axis with ticks of its own on the other side of the plot, on another scale ("$250bn"
    #: on the right of "12" on the left): which of the two a mark is read against is not known.
    twin: bool = False

    def value_at(self, pixel: float) -> float:
        return self.slope * pixel + self.intercept

    @property
    def stepped(self) -> bool:
        """Whether the tick values look like an axis's: each gap a whole number of the smallest (a tick OCR missed
        leaves a double gap), and written no finer than a thousandth of their range. Numbers printed down a price
        list or a nutrition label ("45.0g", "26.6g", "9.5g"; "£41.35", "£17.35") had been taken for ticks, and the
        board for a bar chart."""
        values = sorted(v for _, v in self.ticks)
        if len(values) < 2 or values[-1] == values[0]:
            return True
        if min(_granularity(v) for v in values if v != 0) < (values[-1] - values[0]) / 1000:
            return False
        gaps = [b - a for a, b in zip(values, values[1:], strict=False)]
        step = min(gaps)
        return step > 0 and all(abs(g / step - round(g / step)) <= 0.03 for g in gaps)

    @property
    def span(self) -> float:
        """The range of the tick values calibrated from (0 with fewer than two)."""
        values = [v for _, v in self.ticks]
        return max(values) - min(values) if len(values) >= 2 else 0.0

    def to_dict(self) -> dict:
        return {"orientation": self.orientation, "slope": self.slope, "intercept": self.intercept,
                "ticks": [[round(p, 1), _round(v)] for p, v in self.ticks], "residual": _round(self.residual),
                "scale": self.scale, "twin": self.twin}


@dataclass
class ChartResult:
    """A chart read into a table; ``kind`` is None (and ``reason`` says why) when no chart was found."""

    kind: str | None
    title: str = ""
    series: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    table: dict[str, dict[str, float]] = field(default_factory=dict)
    marks: list[ChartMark] = field(default_factory=list)
    axis: AxisFit | None = None
    warnings: list[str] = field(default_factory=list)
    reason: str = ""
    image_size: tuple[int, int] = (0, 0)
    annotated: Image.Image | None = field(default=None, repr=False)
    #: Every line of text read on the chart (title, ticks, labels, legend, annotations), top to bottom.
    texts: list[str] = field(default_factory=list)
    #: The chart shapes the pixels hold ("pie", "bars", "line"), found before any text was read.
    shapes: list[str] = field(default_factory=list)
    #: Numbers read on the chart that could be values (tick labels, printed values): every number except a
    #: bottom row of them (years under the x axis). 0 with ``shapes`` set: the chart has no value scale.
    value_numbers: int = 0
    #: Texts read beside a key of one colour (legend entries), whether or not the chart could be read.
    legend: list[str] = field(default_factory=list)
    #: The title written up the side of a vertical value axis ("Units sold (thousands)"): what the values count, and
    #: in which unit. Also among ``texts``.
    value_title: str = ""
    #: A stacked bar chart's stacks, one mark per category: the whole stack's value, its top against the axis or
    #: the total printed past it (``marks`` and ``table`` hold the segments, by series).
    stack_totals: list[ChartMark] = field(default_factory=list)
    #: This is a stacked chart's ``totals_view``: each bar is a whole stack (of parts, maybe shares to 100 %).
    whole_stacks: bool = False

    @property
    def marks_seen(self) -> bool:
        return bool(self.shapes)

    @property
    def found(self) -> bool:
        return self.kind is not None and bool(self.table)

    @property
    def doubts(self) -> list[str]:
        """The warnings that put readings in doubt (all but the ones that only say what was left out)."""
        return [w for w in self.warnings if not w.startswith(LEVEL_LINES)]

    @property
    def label_on_several_marks(self) -> str | None:
        """The first label the parser matched to more than one mark (see ``SEVERAL_MARKS``), else None."""
        return next((w.removeprefix(SEVERAL_MARKS) for w in self.warnings if w.startswith(SEVERAL_MARKS)), None)

    @property
    def slice_against_its_percentage(self) -> ChartMark | None:
        """The first pie slice whose printed percentage disagrees with its angle (the angle was kept), else None:
        a pie drawn out of proportion, or slices told apart wrongly."""
        return next((m for m in self.marks if self.kind == "pie" and m.source == "angle" and m.printed is not None),
                    None)

    def totals_view(self) -> ChartResult:
        """A stacked bar chart seen as its stacks alone: one bar per category, as tall as its whole stack (what
        "the highest month" or "the total in May" is read from when the question names no series)."""
        kind = "hbar" if self.kind == "stacked_hbar" else "bar"
        marks = list(self.stack_totals)
        read = {m.category for m in marks}
        return replace(self, kind=kind, series=[DEFAULT_SERIES], categories=[c for c in self.categories if c in read],
                       table={m.category: {DEFAULT_SERIES: m.value} for m in marks}, marks=marks, stack_totals=[],
                       whole_stacks=True)

    def value(self, category: str, series: str | None = None) -> float | None:
        """The value of ``category`` (matched tolerantly: case, spacing, small OCR slips) in ``series``.

        ``series`` may be left out when the chart has one series. Returns None when either name is not found.
        """
        cat = match_name(category, self.categories)
        if cat is None:
            return None
        row = self.table.get(cat, {})
        if series is None:
            if len(row) == 1:
                return next(iter(row.values()))
            return row.get(self.series[0]) if len(self.series) == 1 else None
        name = match_name(series, self.series)
        return None if name is None else row.get(name)

    def extreme(self, highest: bool = True, series: str | None = None) -> str | None:
        """The category with the highest (or lowest) value in ``series`` (the only series when left out)."""
        name = self.series[0] if series is None and len(self.series) == 1 else (
            match_name(series, self.series) if series is not None else None)
        if name is None:
            return None
        scored = [(row[name], cat) for cat, row in self.table.items() if name in row]
        if not scored:
            return None
        return (max if highest else min)(scored)[1]

    def markdown(self) -> str:
        """The table as Markdown: one row per category, one column per series."""
        if not self.found:
            return f"_No chart found: {self.reason}_" if self.reason else "_No chart found._"
        header = "| category | " + " | ".join(self.series) + " |"
        rule = "|---|" + "---|" * len(self.series)
        rows = [f"| {_cell(cat)} | " + " | ".join(
            _fmt(self.table[cat].get(s)) for s in self.series) + " |" for cat in self.categories]
        return "\n".join([header, rule, *rows])

    def summary(self) -> str:
        if not self.found:
            return f"No chart found: {self.reason or 'nothing chart-like in the image'}"
        cells = []
        for cat in self.categories:
            row = self.table[cat]
            if len(self.series) == 1:
                cells.append(f"{cat}={_fmt(row.get(self.series[0]))}")
            else:
                cells.append(f"{cat}: " + ", ".join(f"{s}={_fmt(row.get(s))}" for s in self.series if s in row))
        sources = sorted({m.source for m in self.marks})
        title = f" '{self.title}'" if self.title else ""
        text = (f"{self.kind} chart{title}, {len(self.categories)} categories x {len(self.series)} series "
                f"(values from {'/'.join(sources)}): " + "; ".join(cells))
        if self.warnings:
            text += f" [warnings: {'; '.join(self.warnings[:3])}]"
        return text if len(text) <= 600 else text[:597] + "..."

    def to_dict(self) -> dict:
        return {
            "kind": self.kind, "found": self.found, "title": self.title, "series": list(self.series),
            "categories": list(self.categories),
            "table": {c: {s: _round(v) for s, v in row.items()} for c, row in self.table.items()},
            "marks": [m.to_dict() for m in self.marks],
            "axis": None if self.axis is None else self.axis.to_dict(),
            "warnings": list(self.warnings), "reason": self.reason, "image_size": list(self.image_size),
            "texts": list(self.texts), "shapes": list(self.shapes), "value_numbers": self.value_numbers,
            "legend": list(self.legend), "value_title": self.value_title,
            "stack_totals": [m.to_dict() for m in self.stack_totals],
        }


def _granularity(value: float) -> float:
    """The largest power of ten ``value`` is a whole multiple of: 1000 for 14000, 0.01 for 41.35 (1 for 0)."""
    if value == 0:
        return 1.0
    for power in range(6, -7, -1):
        unit = 10.0 ** power
        if abs(value / unit - round(value / unit)) <= 1e-6 * max(1.0, abs(value / unit)):
            return unit
    return 10.0 ** -7


def normalise_name(text: str) -> str:
    """Case, accents, punctuation and spacing removed: how names are compared."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return re.sub(r"[\W_]+", "", "".join(ch for ch in decomposed if not unicodedata.combining(ch)))


def match_name(query: str, names: list[str]) -> str | None:
    """The one entry of ``names`` that ``query`` names: exact after normalising, else a unique close match."""
    key = normalise_name(query)
    if not key:
        return None
    keys = {name: normalise_name(name) for name in names}
    exact = [name for name, k in keys.items() if k == key]
    if exact:
        return exact[0]
    # OCR slips one or two characters ("Cherrles"); accept the best match only when it clearly beats the rest.
    scored = sorted(((SequenceMatcher(None, key, k).ratio(), name) for name, k in keys.items() if k), reverse=True)
    if scored and scored[0][0] >= 0.8 and (len(scored) == 1 or scored[0][0] - scored[1][0] >= 0.05):
        return scored[0][1]
    return None


def _round(value: float) -> float:
    return float(f"{value:.4g}") if abs(value) < 1e4 else round(value, 1)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{_round(value):g}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
