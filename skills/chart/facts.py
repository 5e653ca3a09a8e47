"""What a parsed chart says, as readings a claim can be checked against: value, uncertainty, source, trust.

Misleading charts are built to fool a reader who trusts the marks (truncated or inverted axes, bars out of
proportion, slices whose angles disagree with their labels), so a number printed on the chart is preferred to the
mark's geometry: the author wrote it, and the question's answer is about the data, not the drawing. A value measured
against the axis is used only where the axis can be trusted (a linear, upright scale) and the mark is not cut off
at the edge of the plot; each reading carries its uncertainty so that a comparison is only called when its margin
is well beyond it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from skills.chart.names import CALENDAR
from vision_tools.charts import ChartResult, match_name, normalise_name

#: Trust in a reading, by where it came from (a printed number that the geometry confirms is the best).
TRUST = {"confirmed": 0.99, "printed": 0.93, "axis": 0.9, "angle": 0.88}
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_CLIPPED = re.compile(r"^(.+?): clipped at the top of the plot")
_DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


@dataclass(frozen=True)
class Reading:
    """One value of the chart with how far it can be off (``sigma``, value units) and how far it is trusted."""

    value: float
    sigma: float
    source: str  # "confirmed" | "printed" | "axis" | "angle"
    trust: float


@dataclass
class ChartFacts:
    """The chart's table as readings, its names, and what makes some of its values unusable."""

    kind: str
    title: str
    series: list[str]
    categories: list[str]  # in display order
    cells: dict[str, dict[str, Reading]]
    texts: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # why measured values cannot be used, for the user
    complete: bool = True  # False when a category label has no mark read: a value may be missing from the table

    def reading(self, category: str, series: str | None = None) -> Reading | None:
        row = self.cells.get(category, {})
        if series is None:
            return next(iter(row.values())) if len(row) == 1 else None
        return row.get(series)

    def total(self, series: str) -> Reading | None:
        """The sum of ``series`` over every category; None when a category lacks it."""
        parts = all_read([self.cells.get(c, {}).get(series) for c in self.categories])
        return summed(parts) if parts else None

    def column(self, category: str) -> Reading | None:
        """The sum over the series of ``category`` (a stacked bar's total)."""
        parts = list(self.cells.get(category, {}).values())
        return summed(parts) if parts else None

    def name_of(self, text: str) -> tuple[str, str] | None:
        """``("category" | "series", name)`` that ``text`` names, matched tolerantly; None if it names neither."""
        for kind, names in (("category", self.categories), ("series", self.series if len(self.series) > 1 else [])):
            found = match_name(text, names)
            if found is not None:
                return kind, found
        return None

    def in_time_order(self) -> list[str]:
        """The categories in chronological order when they all read as times (years, months, quarters, days,
        weeks), else in display order."""
        keyed = [(k, c) for c in self.categories if (k := time_key(c)) is not None]
        if len(keyed) == len(self.categories) and len({k[0] for k, _ in keyed}) == 1:
            return [c for _, c in sorted(keyed)]
        return list(self.categories)


def facts_from(chart: ChartResult, texts: list[str] | None = None) -> ChartFacts:
    """The readings of ``chart``: printed numbers first, measurements only where the axis can be trusted."""
    problems: list[str] = []
    axis = chart.axis
    span = 0.0
    if axis is not None and len(axis.ticks) >= 2:
        values = [v for _, v in axis.ticks]
        span = max(values) - min(values)
    measured_ok = True
    for warning in chart.warnings:
        if "not linear" in warning or "inverted" in warning:
            problems.append(warning)
            measured_ok = False
    cells: dict[str, dict[str, Reading]] = {}
    # A label "41.7M" over an axis of millions is in the table as 41.7 (``axes.reconcile``): read it so.
    readings = {id(mark): _reading(mark.value if mark.source == "label" and mark.printed is not None else mark.printed,
                                   mark.measured, mark.source, span, axis.residual if axis else 0.0,
                                   measured_ok and "clipped" not in mark.source) for mark in chart.marks}
    checked = [r for r in readings.values() if r is not None and r.source in ("confirmed", "printed")]
    confirmed = sum(1 for r in checked if r.source == "confirmed")
    doubted: list[str] = []
    for mark in chart.marks:
        reading = readings[id(mark)]
        if reading is not None and reading.source == "printed" and chart.kind != "pie" and confirmed >= 2 and \
                confirmed > len(checked) / 2:
            # A chart drawn out of proportion bends every mark alike; one printed number against a geometry that
            # confirms the others is as likely an OCR misreading ("6" for a "90" touching the frame): no reading.
            problems.append(f"{mark.category}: its printed value disagrees with its mark, while the other printed "
                            "values agree with theirs")
            doubted.append(mark.category)
            continue
        if reading is not None:
            cells.setdefault(mark.category, {})[mark.series] = reading
    categories = [c for c in chart.categories if c in cells]
    # A category cut off at the top of the plot is shown but has no value: it stays a name options can mention.
    categories += [c for c in clipped_categories(chart.warnings) + doubted if c not in categories]
    complete = len(categories) == len(chart.categories) and not any(
        "may be missing" in w or "clipped" in w for w in chart.warnings)
    if not complete:
        problems.append("a category of the chart has no value read")
    return ChartFacts(chart.kind or "", chart.title, list(chart.series), categories, cells, list(texts or []),
                      problems, complete)


def clipped_categories(warnings: list[str]) -> list[str]:
    """The categories whose marks the parser found cut off at the top of the plot (shown, but with no value)."""
    return [m.group(1) for w in warnings if (m := _CLIPPED.match(w))]


def _reading(printed: float | None, measured: float | None, source: str, span: float, residual: float,
             measured_ok: bool) -> Reading | None:
    if source in ("angle", "printed") and measured is not None:  # pie: shares from angles, printed percentages
        if printed is not None:
            agree = abs(printed - measured) <= max(2.5, 0.15 * measured)
            return Reading(printed, 0.5, "confirmed" if agree else "printed", TRUST["confirmed" if agree else "printed"])
        return Reading(measured, 1.5, "angle", TRUST["angle"])
    # Measurements are good to a few tenths of a percent of the axis span (bench_charts: p95 0.6 % of the value).
    sigma = max(residual, 0.005 * span) if span else 0.0
    if printed is not None:
        agree = measured is not None and measured_ok and abs(printed - measured) <= max(3 * sigma, 0.05 * abs(printed))
        unit = _last_digit(printed)
        # A printed number is exact as printed; what can go wrong is the OCR, which ``trust`` stands for.
        return Reading(printed, unit / 10, "confirmed" if agree else "printed",
                       TRUST["confirmed" if agree else "printed"])
    if measured is None or not measured_ok or not span:
        return None
    return Reading(measured, sigma, "axis", TRUST["axis"])


def _last_digit(value: float) -> float:
    """The unit of the last printed digit (12.5 -> 0.1, 400 -> 1)."""
    text = f"{value:.6g}"
    return 10.0 ** -len(text.split(".")[1]) if "." in text else 1.0


def all_read(values: list[Reading | None]) -> list[Reading] | None:
    """``values`` when every one was read, else None (a sum or a trend over a gap is no sum or trend)."""
    read = [v for v in values if v is not None]
    return read if read and len(read) == len(values) else None


def summed(parts: list[Reading]) -> Reading:
    """The sum of ``parts``: uncertainties add up, trust is the weakest part's."""
    return Reading(sum(p.value for p in parts), sum(p.sigma for p in parts), "sum", min(p.trust for p in parts))


def mean_of(parts: list[Reading]) -> Reading:
    total = summed(parts)
    return Reading(total.value / len(parts), total.sigma / len(parts), "mean", total.trust)


def time_key(name: str) -> tuple[int, tuple[float, ...]] | None:
    """A sort key for a category that reads as a time: ``(scheme, position)``; None when it does not."""
    text = normalise_spaces(name)
    if m := re.fullmatch(r"(?:fy\s*)?((?:1[5-9]|20)\d\d)(?:\s*[-/–]\s*\d{2,4})?", text):  # 2018, 2007-08
        return (0, (float(m.group(1)),))
    if m := re.fullmatch(r"q([1-4])(?:\s+((?:19|20)\d\d))?", text):  # Q1, Q1 2022
        return (1, (float(m.group(2) or 0), float(m.group(1))))
    if m := re.fullmatch(r"((?:19|20)\d\d)\s+q([1-4])", text):
        return (1, (float(m.group(1)), float(m.group(2))))
    if m := re.fullmatch(r"(day|week|wk|month|quarter|year)\s*(\d{1,3})", text):  # "Week 3", "Wk3"
        unit = "week" if m.group(1) == "wk" else m.group(1)
        return (2 + ["day", "week", "month", "quarter", "year"].index(unit), (float(m.group(2)),))
    # The word must start a month's or a day's full name ("Sept", "Tues"): "Maya" and "Marco" are no months.
    m = re.fullmatch(r"(?P<word>[a-z]{3,})\.?(?:\s+(?P<day>\d{1,2}))?(?:,?\s+(?P<year>(?:19|20)\d\d))?", text)
    if m and (m.group("word") == "weds" or any(full.startswith(m.group("word")) for full in CALENDAR)):
        start = m.group("word")[:3]
        if start in _MONTHS:
            return (7, (float(m.group("year") or 0), float(_MONTHS.index(start)), float(m.group("day") or 0)))
        if start in _DAYS and not m.group("day"):
            return (8, (float(_DAYS.index(start)),))
    return None


def normalise_spaces(text: str) -> str:
    return " ".join(text.lower().replace("’", "'").split())


def same_name(a: str, b: str) -> bool:
    return normalise_name(a) == normalise_name(b)
