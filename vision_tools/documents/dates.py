"""The date of a receipt or invoice, answered exactly as printed (12/02/2018, 29-12-2017, 05 Mar 2018, 2018-01-31).

Every date-shaped span is a candidate; a "Date" label on its line or just left of it, a time printed beside it,
a four-digit year and the same day printed again elsewhere make it likelier; words such as "expiry" or "valid"
make it unlikely. A compact date (25032018) counts only beside a time or a date label.
"""

from __future__ import annotations

import re

from vision_tools.documents.layout import Layout, Placed
from vision_tools.documents.patterns import TIME, DateSpan, dates_in
from vision_tools.documents.result import Candidate, FieldAnswer

_DATE_LABEL = re.compile(r"\b(?:date|dated|tarikh|bizdate|dd|dt)\b", re.IGNORECASE)
_NOT_PURCHASE = re.compile(r"\b(?:exp|expiry|expires|valid|until|due|birth|dob|print(?:ed)?\s+date)\b", re.IGNORECASE)
_DayKey = tuple[int, tuple[tuple[int, int], ...]]  # a year and the (month, day) pairs a span can mean


def find_date(layout: Layout) -> FieldAnswer:
    """The document's date as printed, with the box of the line it was read from."""
    spans: list[tuple[float, DateSpan, Placed, str]] = []
    for placed in layout.lines:
        row_text = layout.row_text(placed.row)
        left = " ".join(p.text for p in layout.rows[placed.row] if p.x1 <= placed.x0 + 1)
        for span in dates_in(placed.text):
            before = placed.text[:span.start]
            after = placed.text[span.end:]
            labelled = bool(_DATE_LABEL.search(before) or (not before.strip() and _DATE_LABEL.search(left[-20:])))
            timed = bool(TIME.search(after) or TIME.search(row_text.replace(span.text, " ")))
            if span.compact and not (labelled or timed):
                continue
            score = 0.6
            reasons: list[str] = []
            if labelled:
                score += 0.25
                reasons.append("labelled 'Date'")
            if timed:
                score += 0.1
                reasons.append("a time beside it")
            if span.four_digit_year or span.month_named:
                score += 0.05
            if _NOT_PURCHASE.search(before) or _NOT_PURCHASE.search(left[-25:]):
                score -= 0.3
                reasons.append("printed as another kind of date")
            if span.compact:
                score -= 0.1
            spans.append((score, span, placed, ", ".join(reasons)))
    if not spans:
        return FieldAnswer("date", None, 0.0, missing="no date is printed (no day-month-year pattern found)")
    same_day: dict[_DayKey, int] = {}
    for _, span, _, _ in spans:
        key = _day_key(span)
        same_day[key] = same_day.get(key, 0) + 1
    ranked = []
    for score, span, placed, notes in spans:
        repeats = same_day[_day_key(span)] - 1
        if repeats:
            score += min(0.1, 0.05 * repeats)
            notes = ", ".join(filter(None, [notes, f"the same day printed {repeats} more time(s)"]))
        ranked.append((score, span, placed, notes))
    # Best first; among equals the earlier line (the date printed in the header, not a footer's print time).
    ranked.sort(key=lambda item: (-item[0], item[2].index))
    score, span, placed, notes = ranked[0]
    rivals = [s for s, other, _, _ in ranked[1:] if _day_key(other) != _day_key(span)]
    margin = 1.0 if not rivals else min(1.0, max(0.3, (score - rivals[0]) / score * 3))
    confidence = placed.line.confidence * min(1.0, score) * (0.6 + 0.4 * margin)
    how = f"in '{placed.text}'" + (f" ({notes})" if notes else "")
    return FieldAnswer("date", span.text, round(confidence, 4), boxes=[placed.line.box], how=how,
                       candidates=[Candidate(s.text, sc, p.text) for sc, s, p, _ in ranked[:5]])


def _day_key(span: DateSpan) -> _DayKey:
    """Spans that can mean the same day share a key."""
    return span.year, span.readings
