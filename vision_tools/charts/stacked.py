"""Stacked bar charts: each bar's segments, piled from the baseline, read one value per series, and each stack's total.

A stack is a bar on the baseline with segments of other colours piled on its end, each as wide as the bar. A
segment's value is the axis distance between its end and the end of the segment below it (the first from the
baseline), or the number printed inside it where the two agree. The stack's total is the axis value at its end, or
the number printed just past that end (most stacked charts write it there). Stacks on an axis that does not start
at zero have no readable bottom segment, so they are not read at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from vision_tools.charts.axes import Text, reconcile
from vision_tools.charts.bar_labels import printed_label
from vision_tools.charts.pixels import Palette, Rect
from vision_tools.charts.result import DEFAULT_SERIES, AxisFit, ChartMark
from vision_tools.image.boxes import Box

#: A segment overlapping its lower neighbour across less of the bar's width is something else (a legend key, a
#: marker).
MIN_OVERLAP = 0.8
#: Pixels between a segment's end and the next one's start: an edge line (white or dark) drawn between them.
MAX_SEAM = 3


@dataclass
class StackReading:
    """One stack read: its segments' values by series, their marks, and the stack's total."""

    row: dict[str, float] = field(default_factory=dict)
    marks: list[ChartMark] = field(default_factory=list)
    total: ChartMark | None = None
    used: set[int] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)


def is_stacked(bars: list[Rect], rects: list[Rect], vertical: bool) -> bool:
    """Whether most bars carry a segment of another colour on their end (a stacked bar chart)."""
    return len(bars) >= 2 and sum(_carries(b, rects, vertical) for b in bars) >= 0.5 * len(bars)


def _carries(bar: Rect, rects: list[Rect], vertical: bool) -> bool:
    """Whether a rectangle of another colour lies on ``bar``'s end across most of its width (of any width)."""
    for r in rects:
        if r.colour == bar.colour:
            continue
        if vertical:
            if min(r.x1, bar.x1) - max(r.x0, bar.x0) >= MIN_OVERLAP * bar.width and abs(r.y1 - bar.y0) <= MAX_SEAM:
                return True
        elif min(r.y1, bar.y1) - max(r.y0, bar.y0) >= MIN_OVERLAP * bar.height and abs(r.x0 - bar.x1) <= MAX_SEAM:
            return True
    return False


@dataclass
class Stacks:
    """A stacked bar chart's table (category -> series -> segment value), its marks, and each stack's total."""

    categories: list[str] = field(default_factory=list)
    table: dict[str, dict[str, float]] = field(default_factory=dict)
    marks: list[ChartMark] = field(default_factory=list)
    totals: list[ChartMark] = field(default_factory=list)
    used: set[int] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)

    def drop(self, category: str, why: str) -> None:
        """Leave ``category`` out of the table, saying ``why``."""
        self.table.pop(category, None)
        self.marks = [m for m in self.marks if m.category != category]
        self.totals = [m for m in self.totals if m.category != category]
        self.categories = [c for c in self.categories if c != category]
        self.warnings.append(f"{category}: {why}")


def read_stacks(chains: list[list[Rect]], groups: Mapping[Text | str, list[Rect]], series_of: dict[int, str],
                axis: AxisFit | None, base: float, numbers: list[Text], text_h: float, palette: Palette,
                vertical: bool) -> Stacks:
    """Every stack under its category label (``groups``: one base bar per label) read with ``read_stack``."""
    out = Stacks()
    chain_of = {id(chain[0]): chain for chain in chains}
    for label, members in groups.items():
        category = label if isinstance(label, str) else label.text
        chain = chain_of[id(members[0])]
        stack = read_stack(category, chain, series_of, axis, base, numbers, text_h, palette, vertical)
        out.warnings += stack.warnings
        out.used |= stack.used
        if not stack.row:
            continue
        out.categories.append(category)
        out.table[category] = stack.row
        out.marks += stack.marks
        if stack.total is not None:
            out.totals.append(stack.total)
    printed = {m.category for m in out.totals if m.printed is not None}
    if len(printed) >= len(out.categories) / 2:
        # Where most stacks have their total printed past them, one without is likely not read to its end (a
        # legend laid over it, a segment missed): its top says nothing.
        for category in [c for c in out.categories if c not in printed]:
            out.drop(category, "no total is printed past this stack, as past the others: it may not be read whole")
    return out


def stack_chains(bars: list[Rect], rects: list[Rect], vertical: bool) -> list[list[Rect]] | None:
    """For each bar on the baseline, the bar and the segments piled on it, in order from the baseline; None when a
    pile goes on with something no segment is (wider than the bar): where the stack ends is not known."""
    chains = []
    for bar in bars:
        chain = [bar]
        while (following := _next_segment(chain[-1], bar, rects, vertical, chain)) is not None:
            chain.append(following)
        if _carries(chain[-1], rects, vertical):
            return None
        chains.append(chain)
    return chains


def _next_segment(top: Rect, bar: Rect, rects: list[Rect], vertical: bool, taken: list[Rect]) -> Rect | None:
    best: tuple[float, Rect] | None = None
    for r in rects:
        if r.colour == top.colour or any(r is t for t in taken):
            continue
        if vertical:
            overlap = min(r.x1, bar.x1) - max(r.x0, bar.x0)
            width, seam = r.width, abs(r.y1 - top.y0)
        else:
            overlap = min(r.y1, bar.y1) - max(r.y0, bar.y0)
            width, seam = r.height, abs(r.x0 - top.x1)
        thick = bar.width if vertical else bar.height
        if overlap >= MIN_OVERLAP * thick and width <= thick / MIN_OVERLAP and seam <= MAX_SEAM and \
                (best is None or overlap > best[0]):
            best = (overlap, r)
    return None if best is None else best[1]


def read_stack(category: str, chain: list[Rect], series_of: dict[int, str], axis: AxisFit | None, base: float,
               numbers: list[Text], text_h: float, palette: Palette, vertical: bool) -> StackReading:
    """The values of one stack's segments (``series_of`` names them by colour) and its total."""
    out = StackReading()
    span = axis.span if axis is not None else 0.0
    zero = axis.value_at(base) if axis is not None else 0.0
    if axis is not None and abs(zero) > 0.03 * span:
        out.warnings.append(f"{category}: the value axis does not start at zero under the stack, so its first "
                            "segment has no readable value")
        return out
    start = base
    for segment in chain:
        end = segment.y0 if vertical else segment.x1
        measured = None if axis is None else axis.value_at(end) - axis.value_at(start)
        inside = _printed_inside(numbers, segment)
        start = end
        printed = inside.number if inside is not None else None
        if measured is None and printed is None:
            out.warnings.append(f"no axis and no printed value for a segment of {category}")
            continue
        value, source, warning = reconcile(measured, printed, span)
        if warning:
            out.warnings.append(f"{category}: {warning}")
        if inside is not None:
            out.used.add(id(inside))
        name = series_of[segment.colour]
        if name in out.row:  # two segments of one colour in a stack: which the series' value is, is not known
            out.warnings.append(f"{category}: two segments of one colour ({name})")
            return StackReading(warnings=out.warnings)
        out.row[name] = value
        out.marks.append(ChartMark(category, name, value, source, Box(segment.x0, segment.y0, segment.x1, segment.y1),
                                   measured, printed, palette.rgb(segment.colour)))
    top = chain[-1]
    measured_total = None if axis is None else axis.value_at(top.y0 if vertical else top.x1) - zero
    above = printed_label(numbers, top, vertical, text_h, inside=0.3)  # the total, past the stack's end
    printed_total = above.number if above is not None else None
    if printed_total is None and out.marks and len(out.marks) == len(chain) and \
            all(m.source == "label" for m in out.marks):
        # Every segment prints its value: their sum is the stack's total as printed (99.5 measured is 100).
        printed_total = sum(m.value for m in out.marks)
    if measured_total is None and printed_total is None:
        return out
    value, source, warning = reconcile(measured_total, printed_total, span)
    if warning:
        out.warnings.append(f"{category} (total): {warning}")
    if above is not None:
        out.used.add(id(above))
    box = Box(min(s.x0 for s in chain), min(s.y0 for s in chain), max(s.x1 for s in chain), max(s.y1 for s in chain))
    out.total = ChartMark(category, DEFAULT_SERIES, value, source, box, measured_total, printed_total,
                          palette.rgb(chain[0].colour))
    return out


def _printed_inside(numbers: list[Text], segment: Rect) -> Text | None:
    """The number written inside ``segment`` (nearest its middle when several are)."""
    inside = [t for t in numbers if segment.x0 <= t.cx <= segment.x1 and segment.y0 <= t.cy <= segment.y1]
    return min(inside, key=lambda t: abs(t.cx - segment.cx) + abs(t.cy - segment.cy)) if inside else None
